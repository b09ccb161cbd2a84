import type { Kysely } from 'kysely';

/**
 * Runs `fn` in a transaction: the caller's when `db` is one already (a keyed request runs its
 * write inside the transaction that claims its Idempotency-Key, and a batch all its writes in one).
 */
export const inTransaction = <T>(db: Kysely<any>, fn: (trx: Kysely<any>) => Promise<T>): Promise<T> =>
  db.isTransaction ? fn(db) : db.transaction().execute(fn);
