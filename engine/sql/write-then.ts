import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/**
 * What a database handle may offer (adapters/sqlite's GroupCommitKysely does): a lone write
 * and, right after it and before anything else runs, a statement made from its result, the two
 * kept together or not at all. A create and its event then need no transaction of their own.
 * Named by a registered symbol, so the engine asks for it without importing the adapter.
 */
export const WRITE_THEN = Symbol.for('maintenance-records.writeThen');

export type WriteThen = (write: CompiledQuery, then: (result: QueryResult<unknown>) => CompiledQuery) => Promise<QueryResult<unknown>>;

/** The handle's WriteThen, when it has one and is not inside a transaction (which has its own way). */
export function writeThenOf(db: Kysely<any>): WriteThen | undefined {
  if (db.isTransaction) return undefined;
  const f = (db as unknown as { [WRITE_THEN]?: WriteThen })[WRITE_THEN];
  return typeof f === 'function' ? f.bind(db) : undefined;
}
