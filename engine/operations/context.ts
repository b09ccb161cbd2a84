import { sql, type Kysely } from 'kysely';
import type { CursorSettings } from '../cursor/index.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EngineError } from '../errors.ts';
import type { Registry, Resource } from '../registry.ts';
import { storedOf, type Stored } from '../records.ts';
import type { ReadForWrite } from '../writes/plan.ts';
import { compiledStatement } from '../compiled-queries.ts';
import { databaseOf } from '../dialects/index.ts';
import { lazyMarkOf } from '../cursor/lazy-mark.ts';

/** What an operation runs with: the tenant's database and the caller. Never HTTP. */
export interface OperationContext {
  readonly tenant: TenantDb;
  readonly registry: Registry;
  /** The authenticated user, when authentication is on. */
  readonly user?: string | undefined;
  /** The user's roles, when the host tells them (engine/states/transition.ts says what none means). */
  readonly roles?: readonly string[] | undefined;
  readonly cursors: CursorSettings;
}

/** A child list or create: the parent record named by the path. */
export interface ParentScope {
  readonly resource: Resource;
  readonly id: number;
  /** The child's field that links to the parent. */
  readonly field: string;
}

export const notFound = (resource: string, id: number) => new EngineError('not-found', `${resource} ${id} does not exist or was deleted.`);

const rowById = compiledStatement<{ table: string }, { id: number }, Record<string, unknown>>('row by id', (db, { table }, p) =>
  db.selectFrom(table).selectAll().where('id', '=', p.id),
);

/** The column a write's read of its row carries the row's JSON in (rowJson): no field is named so. */
const BEFORE_ROW = 'mrs_before_row';

/**
 * A write's read of its row (loadForWrite), compiled once per collection (its fields decide the
 * row's JSON) and database setup. `now`: the write's time, against the collection's lazy-cursor
 * mark where the database keeps rows only while it lasts.
 */
const rowForWrite = compiledStatement<{ resource: Resource }, { id: number; now: number }, Record<string, unknown>>(
  'row for write',
  (db, { resource }, { id, now }) => {
    const { flavour, supports } = databaseOf(db);
    const json = flavour.rowJson('r', resource.fieldNames);
    const before = supports.beforeRowsOnlyWhileMarked
      ? sql<string | null>`case when ${lazyMarkOf(db, resource.name)} >= ${now} then ${json} end`
      : json;
    const read = db.selectFrom(`${resource.name} as r`).selectAll('r').select(before.as(BEFORE_ROW)).where('r.id', '=', id);
    return supports.rowLocks ? read.forUpdate() : read;
  },
);

/**
 * loadRecord for a write in a transaction: the live record, and its row as the database's rowJson
 * writes it, kept with the write's event (NewEvent.before) for lazy snapshots
 * (engine/cursor/lazy.ts), or only while a lazy cursor may need it (cursor/lazy-mark.ts). The row
 * is locked until the transaction ends (Supports.rowLocks), or the transaction holds the
 * whole database: what the write replaces is the row read here.
 */
export async function loadForWrite(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
): Promise<ReadForWrite | undefined> {
  const row = (await rowForWrite.run(db, { resource }, { id, now: ctx.cursors.now() })).rows[0];
  const stored = recordOf(ctx, resource, row, false);
  return stored && { record: stored.record, version: stored.version, before: row![BEFORE_ROW] as string | undefined };
}

/**
 * A change's read of its record (engine/writes/writer.ts `Change.replan`): under its lock
 * (loadForWrite) or not (loadRecord); 404 when it is not live.
 */
export async function readForChange(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
  lock: boolean,
): Promise<ReadForWrite> {
  const read = lock ? await loadForWrite(db, ctx, resource, id) : await loadRecord(db, ctx, resource, id);
  if (!read) throw notFound(resource.name, id);
  return read;
}

/** Loads one row, live only unless asked otherwise. */
export async function loadRecord(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
  includeDeleted = false,
): Promise<Stored | undefined> {
  return recordOf(ctx, resource, (await rowById.run(db, { table: resource.name }, { id })).rows[0], includeDeleted);
}

/** A row read as its record: live only unless asked otherwise. */
function recordOf(
  ctx: OperationContext,
  resource: Resource,
  row: Record<string, unknown> | undefined,
  includeDeleted: boolean,
): Stored | undefined {
  if (!row) return undefined;
  const stored = storedOf(resource, ctx.tenant.flavour, row);
  return stored.record.deleted && !includeDeleted ? undefined : stored;
}
