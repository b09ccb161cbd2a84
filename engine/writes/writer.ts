import type { Kysely } from 'kysely';
import type { Supports, TenantDb } from '../dialects/types.ts';
import { writeThenOf, type WriteThen } from '../sql/write-then.ts';

/**
 * How a write and its event are kept together on a handle (docs/writes.md, "Which writer runs
 * when"), chosen once per handle: the operations ask it, never the database's or the handle's
 * flags behind it.
 */
export interface Writer {
  /** The database writes a record and its event in one statement (Supports.eventInStatement), in a caller's transaction too. */
  readonly oneStatement: boolean;
  /** A keyed create's statement can claim its key too (Locks.inStatement), where it is one statement. */
  readonly claimsInStatement: boolean;
  /** The handle runs a write's event right after it, kept together without a transaction (engine/sql/write-then.ts). */
  readonly writeThen: WriteThen | undefined;
  /** The handle is a caller's transaction (a keyed request's, a batch's): a write's read and event go in it. */
  readonly inTransaction: boolean;
  /** After a write whose event a statement wrote: the feed's numbering nudge (EventLog.written). */
  wrote(t: TenantDb): void;
}

const chosen = new WeakMap<Kysely<any>, Writer>();
const inTransactions = new WeakMap<Supports, Writer>();

export function writerOf(t: TenantDb): Writer {
  // A transaction's handle is new each time: its writer is its database's, once per kind of database.
  const cache: WeakMap<object, Writer> = t.db.isTransaction ? inTransactions : chosen;
  const key = t.db.isTransaction ? t.supports : t.db;
  let w = cache.get(key);
  if (!w) cache.set(key, (w = choose(t)));
  return w;
}

function choose({ db, supports, events }: TenantDb): Writer {
  return {
    oneStatement: supports.eventInStatement,
    claimsInStatement: supports.eventInStatement,
    // A database that writes the event in the write's statement has no use for it.
    writeThen: supports.eventInStatement ? undefined : writeThenOf(db),
    inTransaction: db.isTransaction,
    wrote: (t) => events.written(t),
  };
}
