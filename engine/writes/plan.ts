import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import type { SqlFlavour } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import { toRow, type ApiRecord } from '../records.ts';
import { checkBody, fieldProblems } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import type { RowCondition } from './conditions.ts';
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
export interface WriteCaller {
  readonly flavour: SqlFlavour;
  /** The event's time (the engine's clock). */
  readonly at: string;
  readonly user: string | null;
  /** The record's `created` and `updated` stamps (the wall clock). */
  readonly stamp: { readonly date: string; readonly timestamp: string };
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
