import type { Kysely } from 'kysely';
import type { Supports, TenantDb } from '../dialects/types.ts';
import type { NewEvent } from '../events/event-log.ts';
import { eventParentOf } from '../events/event-parent.ts';
import { keepQuery, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import { storedOf, writtenOf, type ApiRecord, type Written } from '../records.ts';
import type { Resource } from '../registry.ts';
import { byId, insertClaimedQuery, insertIfKeyFreeQuery, insertQuery, insertWithEventsQuery } from '../sql/record-inserts.ts';
import { updateQuery, updateWithEventQuery } from '../sql/record-writes.ts';
import { writeThenOf, type WriteThen } from '../sql/write-then.ts';
import { DELETED_FIELDS, type ChangePlan, type InsertPlan, type ReadForWrite } from './plan.ts';
import { inTransaction } from './transaction.ts';

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
  runClaimed(t: TenantDb, plan: InsertPlan, claim: Claim, kept: KeptCreate): Promise<KeptAnswer | undefined>;
  /** A PATCH's, PUT's or soft delete's plan and its event: the record written; throws its refusal (Change.replan's). */
  change(t: TenantDb, change: Change): Promise<Written>;
}

/** What a keyed create keeps for its key, made from the record written: in JavaScript (`answer`), or by its statement, the Location under `collectionPath`. */
export interface KeptCreate {
  readonly collectionPath: string;
  readonly answer: (written: Written) => KeptAnswer;
}

/**
 * A PATCH, PUT or soft delete as a writer runs it: its plan made without a read, when it can be
 * one, and its plan made again from the record read, when that one wrote nothing or cannot run,
 * and after a lost compare-and-set: how a lost race is retried is the writer's business.
 */
export interface Change {
  /** Its plan without a read, made only by a writer that runs one: undefined when it needs its read. */
  readonly unread: () => ChangePlan | undefined;
  /** Reads the record on `db` (under its lock when `lock`) and plans from it; throws the write's refusal (404, 412, 422, ...). */
  readonly replan: (db: Kysely<any>, lock: boolean) => Promise<{ readonly plan: ChangePlan; readonly read: ReadForWrite }>;
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
  if (supports.eventInStatement) return oneStatement(db.isTransaction);
  const writeThen = writeThenOf(db);
  return writeThen ? withWriteThen(writeThen) : inTransactionWriter();
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

/** A PATCH's, PUT's or soft delete's event, of the record its plan wrote over the row read. */
const changeEvent = (plan: ChangePlan, written: Required<Written>, read: ReadForWrite): NewEvent => ({
  collection: plan.resource.name,
  id: written.record.id as number,
  op: plan.kind,
  changed: plan.kind === 'delete' ? DELETED_FIELDS : changedFields(plan.resource, read.record, written.record),
  record: written.json,
  user: plan.event.user,
  at: plan.event.at,
  before: read.before,
  parent: eventParentOf(plan.resource, written.record),
});

/** The collection's own fields (not the system ones) whose value differs between two versions of a record. */
const changedFields = (resource: Resource, before: ApiRecord, after: ApiRecord): string[] =>
  Object.keys(resource.definition.fields).filter((name) => before[name] !== after[name]);

/** The row as its record, with its JSON made once for its event and its answer. */
const writtenRow = (t: TenantDb, plan: InsertPlan | ChangePlan, row: Record<string, unknown>) =>
  writtenOf(storedOf(plan.resource, t.flavour, row));

/**
 * A change in a transaction `trx`: the row read under its lock (or in a transaction that holds
 * the whole database), planned from it, written, then its event; a plan that wrote nothing (its
 * compare-and-set lost) is made again from a new read, which says why when it refuses.
 */
async function changeIn(t: TenantDb, trx: Kysely<any>, change: Change): Promise<Written> {
  for (let round = 0; ; round++) {
    const { plan, read } = await change.replan(trx, true);
    const row = (await trx.executeQuery(updateQuery(t, trx, plan))).rows[0];
    if (!row) {
      // Under the row's lock only a plan whose conditions disagree with the read can lose again: a bug, not a race.
      if (round < LOST_ROUNDS) continue;
      throw new Error(`${plan.resource.name} ${plan.id}: the write's conditions did not hold on the row its plan was made from`);
    }
    const written = writtenRow(t, plan, row);
    await t.events.append(t, trx, [changeEvent(plan, written, read)]);
    return written;
  }
}

/** Compare-and-sets a change may lose to other writes before it takes the row's lock. */
const LOST_ROUNDS = 3;

/** Any database: the write, then its event, in a transaction (the caller's when there is one; a savepoint under SQLite's group commit). */
function inTransactionWriter(): Writer {
  return {
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
    change: (t, change) => inTransaction(t.db, (trx) => changeIn(t, trx, change)),
  };
}

/** The database writes the record and its event in one statement (PostgreSQL's data-modifying CTEs), atomic without a transaction. */
function oneStatement(inTrx: boolean): Writer {
  return {
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
    async runClaimed(t, plan, claim, { collectionPath }) {
      if (!t.locks.inStatement) return undefined;
      const kept = (await t.db.executeQuery(insertClaimedQuery(t, t.db, plan, claim, `${collectionPath}/`))).rows[0];
      if (!kept) return undefined;
      wrote(t);
      return { status: Number(kept.status), body: kept.body, location: kept.location, etag: kept.etag };
    },
    async change(t, change) {
      // Its conditions the statement's WHERE, no read first: no row, and the read says why.
      const unread = change.unread();
      const written = unread && (await changeStatement(t, unread));
      if (written) return written;
      // In a caller's transaction (a keyed request's, a batch's): the read takes the row's lock.
      if (inTrx) return changeIn(t, t.db, change);
      // Else the read takes no lock (a transaction's read committed would not either); the
      // statement keeps the version read where the plan must (a compare-and-set), else any live
      // row; a write that keeps losing its race reads under the row's lock in a transaction.
      for (let round = 0; round < LOST_ROUNDS; round++) {
        const again = await changeStatement(t, (await change.replan(t.db, false)).plan);
        if (again) return again;
      }
      return inTransaction(t.db, (trx) => changeIn(t, trx, change));
    },
  };
}

/** A change and its event as one statement, outside a caller's transaction or in it: the record, or undefined when its conditions did not hold. */
async function changeStatement(t: TenantDb, plan: ChangePlan): Promise<Written | undefined> {
  const row = (await t.db.executeQuery(updateWithEventQuery(t, t.db, plan))).rows[0];
  if (!row) return undefined;
  wrote(t); // in a caller's transaction too: the numbering runs outside it, later
  return storedOf(plan.resource, t.flavour, row);
}

/** A handle that runs the event's statement right after the write, kept with it (engine/sql/write-then.ts: SQLite's one writer). */
function withWriteThen(writeThen: WriteThen): Writer {
  const base = inTransactionWriter();
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
    async runClaimed(t, plan, claim, kept) {
      // The INSERT checks the key is free; its event and the kept answer run right after it.
      let answer: KeptAnswer | undefined;
      await writeThen(insertIfKeyFreeQuery(t, t.db, plan, claim), (result) => {
        const row = result.rows[0] as Record<string, unknown> | undefined;
        if (!row) return [];
        const written = writtenRow(t, plan, row);
        answer = kept.answer(written);
        return [t.events.appendQuery(t, t.db, createEvent(plan, written)), keepQuery(t.db, claim, answer, claim.expiresAt)];
      });
      return answer;
    },
  };
}
