import type { Kysely } from 'kysely';
import type { Supports, TenantDb } from '../dialects/types.ts';
import type { NewEvent } from '../events/event-log.ts';
import { eventParentOf } from '../events/event-parent.ts';
import { createdAnswer } from '../http/write-answer.ts';
import { keepQuery, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import { inTransaction } from '../operations/context.ts';
import { storedOf, writtenOf, type Written } from '../records.ts';
import { byId, insertClaimedQuery, insertIfKeyFreeQuery, insertQuery, insertWithEventsQuery } from '../sql/record-inserts.ts';
import { writeThenOf, type WriteThen } from '../sql/write-then.ts';
import type { InsertPlan } from './plan.ts';

/**
 * Runs write plans (engine/writes/plan.ts), each with its event, kept together one way, chosen
 * once per handle (docs/writes.md, "Which writer runs when"): one statement, write-then, or a
 * transaction. The operations plan and run; they never ask which way.
 */
export interface Writer {
  /** The plan and its event; undefined when its conditions did not hold: nothing written. */
  run(t: TenantDb, plan: InsertPlan): Promise<Written | undefined>;
  /** Plans of one collection and shape, none with conditions (a batch's run of creates), with their events; their records in order. */
  runAll(t: TenantDb, plans: readonly InsertPlan[]): Promise<Written[]>;
  /**
   * A keyed create's plan (no conditions) with its key claimed and its answer kept by the write
   * itself; undefined when this way cannot, or the key was not free: nothing written, and the
   * caller's transaction carries the request out or answers for the key (engine/idempotency/).
   */
  runClaimed(t: TenantDb, plan: InsertPlan, claim: Claim, collectionPath: string): Promise<KeptAnswer | undefined>;
  /** The database writes a record and its event in one statement (Supports.eventInStatement), in a caller's transaction too. */
  readonly oneStatement: boolean;
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

function choose({ db, supports }: TenantDb): Writer {
  const inTrx = db.isTransaction;
  if (supports.eventInStatement) return oneStatement(inTrx);
  const writeThen = writeThenOf(db);
  return writeThen ? withWriteThen(writeThen) : inTransactionWriter(inTrx);
}

const wrote = (t: TenantDb) => t.events.written(t);

/** A create's event, of the record its plan wrote. */
const createEvent = (plan: InsertPlan, written: Required<Written>): NewEvent => ({
  collection: plan.resource.name,
  id: written.record.id as number,
  op: 'create',
  changed: plan.event.changed,
  record: written.json,
  user: plan.event.user,
  at: plan.event.at,
  parent: eventParentOf(plan.resource, written.record),
});

/** The row as its record, with its JSON made once for its event and its answer. */
const writtenRow = (t: TenantDb, plan: InsertPlan, row: Record<string, unknown>) => writtenOf(storedOf(plan.resource, t.flavour, row));

/** Any database: the write, then its event, in a transaction (the caller's when there is one; a savepoint under SQLite's group commit). */
function inTransactionWriter(inTrx: boolean): Writer {
  return {
    oneStatement: false,
    inTransaction: inTrx,
    wrote: () => {},
    run: (t, plan) =>
      inTransaction(t.db, async (trx) => {
        const row = (await trx.executeQuery(insertQuery(t, trx, [plan]))).rows[0];
        if (!row) return undefined;
        const written = writtenRow(t, plan, row);
        await t.events.append(t, trx, [createEvent(plan, written)]);
        return written;
      }),
    runAll: (t, plans) =>
      inTransaction(t.db, async (trx) => {
        const rows = byId((await trx.executeQuery(insertQuery(t, trx, plans))).rows);
        const written = rows.map((row, i) => writtenRow(t, plans[i]!, row));
        await t.events.append(
          t,
          trx,
          written.map((w, i) => createEvent(plans[i]!, w)),
        );
        return written;
      }),
    runClaimed: async () => undefined,
  };
}

/** The database writes the record and its event in one statement (PostgreSQL's data-modifying CTEs), atomic without a transaction. */
function oneStatement(inTrx: boolean): Writer {
  return {
    oneStatement: true,
    inTransaction: inTrx,
    wrote,
    async run(t, plan) {
      const row = (await t.db.executeQuery(insertWithEventsQuery(t, t.db, [plan]))).rows[0];
      if (!row) return undefined;
      wrote(t); // in a caller's transaction too: the numbering runs outside it, later
      return storedOf(plan.resource, t.flavour, row);
    },
    async runAll(t, plans) {
      const rows = byId((await t.db.executeQuery(insertWithEventsQuery(t, t.db, plans))).rows);
      wrote(t);
      return rows.map((row) => storedOf(plans[0]!.resource, t.flavour, row));
    },
    async runClaimed(t, plan, claim, collectionPath) {
      if (!t.locks.inStatement) return undefined;
      const kept = (await t.db.executeQuery(insertClaimedQuery(t, t.db, plan, claim, `${collectionPath}/`))).rows[0];
      if (!kept) return undefined;
      wrote(t);
      return { status: Number(kept.status), body: kept.body, location: kept.location, etag: kept.etag };
    },
  };
}

/** A handle that runs the event's statement right after the write, kept with it (engine/sql/write-then.ts: SQLite's one writer). */
function withWriteThen(writeThen: WriteThen): Writer {
  const base = inTransactionWriter(false);
  return {
    ...base,
    async run(t, plan) {
      let written: Required<Written> | undefined;
      await writeThen(insertQuery(t, t.db, [plan]), (result) => {
        const row = result.rows[0] as Record<string, unknown> | undefined;
        if (!row) return [];
        written = writtenRow(t, plan, row);
        return t.events.appendQuery(t, t.db, createEvent(plan, written));
      });
      return written;
    },
    async runClaimed(t, plan, claim, collectionPath) {
      // The INSERT checks the key is free; its event and the kept answer run right after it.
      let answer: KeptAnswer | undefined;
      await writeThen(insertIfKeyFreeQuery(t, t.db, plan, claim), (result) => {
        const row = result.rows[0] as Record<string, unknown> | undefined;
        if (!row) return [];
        const written = writtenRow(t, plan, row);
        answer = createdAnswer(written, collectionPath);
        return [t.events.appendQuery(t, t.db, createEvent(plan, written)), keepQuery(t.db, claim, answer, claim.expiresAt)];
      });
      return answer;
    },
  };
}
