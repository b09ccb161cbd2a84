import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/**
 * What a database handle may offer (adapters/sqlite's GroupCommitKysely does): a lone write
 * and, right after it and before anything else runs, the statements made from its result (none,
 * one or several, in order), all kept together or none. A create and its event (and a keyed
 * create's kept answer) then need no transaction of their own. Named by a registered symbol, so
 * the engine asks for it without importing the adapter.
 */
export const WRITE_THEN = Symbol.for('maintenance-records.writeThen');

export type WriteThen = (write: CompiledQuery, then: (result: QueryResult<unknown>) => Then) => Promise<QueryResult<unknown>>;

/** What runs after the write: a statement, or several in order (none when the write wrote nothing to follow). */
export type Then = CompiledQuery | readonly CompiledQuery[];

/** The handle's WriteThen, when it has one and is not inside a transaction (which has its own way). */
export function writeThenOf(db: Kysely<any>): WriteThen | undefined {
  if (db.isTransaction) return undefined;
  const f = (db as unknown as { [WRITE_THEN]?: WriteThen })[WRITE_THEN];
  return typeof f === 'function' ? f.bind(db) : undefined;
}
