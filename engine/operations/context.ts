import type { Kysely } from 'kysely';
import type { CursorSettings } from '../cursor/index.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EngineError } from '../errors.ts';
import type { Registry, Resource } from '../registry.ts';
import { toRecord, type ApiRecord } from '../records.ts';
import { compiledFamily } from '../compiled-queries.ts';

/** What an operation runs with: the tenant's database and the caller. Never HTTP. */
export interface OperationContext {
  readonly tenant: TenantDb;
  readonly registry: Registry;
  /** The authenticated user, when authentication is on. */
  readonly user?: string | undefined;
  readonly cursors: CursorSettings;
}

/** A child list or create: the parent record named by the path. */
export interface ParentScope {
  readonly resource: Resource;
  readonly id: number;
  /** The child's field that links to the parent. */
  readonly field: string;
}

/**
 * Runs `fn` in a transaction: the caller's when `db` is one already (a keyed request runs its
 * write inside the transaction that claims its Idempotency-Key, and a batch all its writes in one).
 */
export const inTransaction = <T>(db: Kysely<any>, fn: (trx: Kysely<any>) => Promise<T>): Promise<T> =>
  db.isTransaction ? fn(db) : db.transaction().execute(fn);

export const notFound = (resource: string, id: number) =>
  new EngineError('not-found', `${resource} ${id} does not exist or was deleted.`);

const rowById = compiledFamily<[number], Record<string, unknown>>((table, db, id) =>
  db.selectFrom(table).selectAll().where('id', '=', id).compile(),
);

/** Loads one row, live only unless asked otherwise. */
export async function loadRecord(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
  includeDeleted = false,
): Promise<ApiRecord | undefined> {
  const row = (await rowById(resource.name, db, id)).rows[0];
  if (!row) return undefined;
  const record = toRecord(resource, ctx.tenant.dialect, row);
  return record.deleted && !includeDeleted ? undefined : record;
}
