import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import type { SqlFlavour } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import { nextTimestamp, toRow, type ApiRecord, type Stored } from '../records.ts';
import { checkBody, fieldProblems } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { NEVER, type RowCondition } from './conditions.ts';
import { createLinkConditions } from './rules/parent-links.ts';

/**
 * What a write will do, decided before it touches the database (docs/writes.md): the row, what
 * the database must hold for it to be written (row conditions, its statement's WHERE), and its
 * event. Made by pure functions; a writer (engine/writes/writer.ts) runs it, whichever the way.
 */
export interface InsertPlan {
  readonly kind: 'insert';
  readonly resource: Resource;
  /** The row to insert, its values encoded for their columns. */
  readonly row: Readonly<Record<string, unknown>>;
  /** What must hold for the row to be inserted (its parent links name live records): none, or its INSERT's WHERE. */
  readonly conditions: readonly RowCondition[];
  readonly event: PlannedEvent;
}

/** What a write's event takes from its plan, besides the record written. */
export interface PlannedEvent {
  /** When: the engine's clock, which retention measures by. */
  readonly at: string;
  readonly user: string | null;
  /** The fields it names: a create's are every field of the collection (createdFields). */
  readonly changed: readonly string[];
}

/** Who writes and when: what a plan takes besides its body. */
export interface ChangeCaller {
  readonly flavour: SqlFlavour;
  /** The event's time (the engine's clock). */
  readonly at: string;
  readonly user: string | null;
}

/** A create's caller: with the record's `created` and `updated` stamps (the wall clock). */
export interface WriteCaller extends ChangeCaller {
  readonly stamp: { readonly date: string; readonly timestamp: string };
}

/**
 * A write of a live record's row (a PATCH or PUT, a soft delete): the record, the columns it
 * writes, what the row it replaces must hold, and its event's time and user.
 */
interface RowChange {
  readonly resource: Resource;
  readonly id: number;
  /** The columns written, encoded for them, `updated` among them (a statement keeps it after the row's own). */
  readonly row: Readonly<Record<string, unknown>>;
  /**
   * What the row must hold: If-Match's versions and the rules' conditions for a plan made
   * without a read (its statement's WHERE), the version read for one made from a read that must
   * keep it (a compare-and-set); none: any live row.
   */
  readonly conditions: readonly RowCondition[];
  readonly event: Omit<PlannedEvent, 'changed'>;
}

/** A record read by a write: with the row's JSON its event keeps (NewEvent.before), when kept. */
export interface ReadForWrite extends Stored {
  readonly before?: string | undefined;
}

/** A PATCH's or PUT's plan: its event names the fields whose value it changed, compared by its writer. */
export interface UpdatePlan extends RowChange {
  readonly kind: 'update';
}

/** A soft delete's plan: `deleted` set, which its event names (DELETED_FIELDS). */
export interface DeletePlan extends RowChange {
  readonly kind: 'delete';
}

export type ChangePlan = UpdatePlan | DeletePlan;

/** A soft delete event's `changed`. */
export const DELETED_FIELDS: readonly string[] = Object.freeze(['deleted']);

/** A plan from a read keeps the version read, when it must (a compare-and-set): its only condition. */
export const versionRead = (version: number | undefined): RowCondition[] =>
  version === undefined ? [] : [{ is: 'version', value: version }];

/** A soft delete's plan without a read: stamped now, its If-Match its condition; undefined when it needs its read (no tag of ours: NEVER). */
export const planUnreadDelete = (
  resource: Resource,
  id: number,
  caller: ChangeCaller,
  ifMatch: RowCondition | undefined,
): DeletePlan | undefined =>
  ifMatch === NEVER ? undefined : deletePlan(resource, id, caller, nextTimestamp(undefined), ifMatch ? [ifMatch] : []);

/** A soft delete's plan from the record read: stamped after the record's own, at the version its If-Match asked (`expected`), when it did. */
export const planReadDelete = (
  resource: Resource,
  id: number,
  caller: ChangeCaller,
  current: Stored,
  expected: number | undefined,
): DeletePlan => deletePlan(resource, id, caller, nextTimestamp(current.record.updated), versionRead(expected));

function deletePlan(resource: Resource, id: number, caller: ChangeCaller, updated: string, conditions: RowCondition[]): DeletePlan {
  const row = { deleted: caller.flavour.encode('boolean', true), updated };
  return { kind: 'delete', resource, id, row, conditions, event: { at: caller.at, user: caller.user } };
}

/**
 * A create's plan from its body (a parent path's link already in it): the row stamped now, its
 * parent links as conditions (each names a live record), or the body's problems (`problems`:
 * found before, reported with them). The links of a body with problems are not judged here: the
 * operation looks them up to report them together.
 */
export function planCreate(
  resource: Resource,
  body: unknown,
  caller: WriteCaller,
  changed: readonly string[],
  problems: readonly ProblemItem[] = [],
): Result<InsertPlan> {
  const checked = checkBody(schemasOf(resource).create, body);
  const all = [...problems, ...fieldProblems(checked)];
  if (all.length > 0 || !('value' in checked)) return { error: invalidBody(all) };
  const values = checked.value as ApiRecord;
  const { date, timestamp } = caller.stamp;
  return {
    value: {
      kind: 'insert',
      resource,
      row: toRow(resource, caller.flavour, Object.assign({}, values, { created: date, updated: timestamp, deleted: false })),
      conditions: createLinkConditions(resource, values),
      event: { at: caller.at, user: caller.user, changed },
    },
  };
}

export const invalidBody = (problems: readonly ProblemItem[]) =>
  new EngineError('invalid-body', 'The body is not a valid record: see errors.', [...problems]);
