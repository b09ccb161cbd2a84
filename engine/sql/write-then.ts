import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/**
 * What a database handle may offer (adapters/sqlite's GroupCommitKysely does): a lone write
 * and, right after it and before anything else runs, the statements made from its result (none,
 * one or several, in order), all kept together or none. A create and its event (and a keyed
 * create's kept answer) then need no transaction of their own. A handle offers it by registering
 * it here, so the engine asks for it without importing the adapter.
 */
export type WriteThen = (write: CompiledQuery, then: (result: QueryResult<unknown>) => Then) => Promise<QueryResult<unknown>>;

/** What runs after the write: a statement, or several in order (none when the write wrote nothing to follow). */
export type Then = CompiledQuery | readonly CompiledQuery[];

const offered = new WeakMap<Kysely<any>, WriteThen>();

/** The handle offers its WriteThen; a handle made from it (withPlugin, withSchema, a wrapper) offers its own or none. */
export function offerWriteThen(db: Kysely<any>, writeThen: WriteThen): void {
  offered.set(db, writeThen);
}

/** The handle's WriteThen, when it offers one and is not inside a transaction (which has its own way). */
export function writeThenOf(db: Kysely<any>): WriteThen | undefined {
  return db.isTransaction ? undefined : offered.get(db);
}
