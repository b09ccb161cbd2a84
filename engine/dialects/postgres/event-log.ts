import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { EngineError } from '../../errors.ts';
import { EVENTS_TABLE, type EventLog, type EventQuery } from '../../events/event-log.ts';
import { eventAppender, EVENT_COLUMNS, pageReader, pageTextReader, type PageRead } from '../../events/event-sql.ts';
import { parentText } from '../../events/event-parent.ts';
import { sweepEvents } from '../../events/event-sweep.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';
import { outsideTransactions } from '../../tenant-state.ts';
import { batchedHighest } from './highest-batch.ts';

/** What a feed statement knows of its tenant's database: its schema (the setup's). */
type InSchema = Pick<TenantDb, 'schema'>;

/** The tenant's one-row counter of seqs: the highest seq given. */
export const EVENT_COUNTER = 'mrs_event_counter';

/**
 * PostgreSQL's change feed: events are written with their change and numbered once committed.
 *
 * A sequence taken by the write would not do: its values are taken in one order and committed
 * in another, so a reader that saw seq N could later see N-1 appear. Taking the next number from
 * a counter row in the write (as a first version did) keeps the order, but holds the row's lock
 * until the write commits, so every write of a tenant waited for the commit (the WAL flush) of
 * the one before: writes of one tenant ran one at a time (BENCHMARKS.md, "The change feed's cost
 * on writes"). So a write inserts its event without a seq (`pos`, its insertion order, only
 * orders the ones still unnumbered), and taking no lock; numbering happens later, in a statement
 * that sees them committed: it gives every event its snapshot shows unnumbered the next seqs
 * after the counter, in `pos` order, and raises the counter by as many, as a compare-and-set on
 * the counter's value in that same snapshot (`numbering`). Numberings thus follow each other: one
 * that ran on a snapshot older than the last numbering's commit changes nothing and is run again.
 * Seqs become visible only with the numbering's commit, all at once and above every seq before:
 * a reader that saw N never sees a smaller seq appear. Several processes may number at once;
 * the compare-and-set lets one win. Numbering runs where a write was (its process numbers its
 * tenant's new events a moment later: numberSoon) and where seqs are read: the feed's reads,
 * polls and sweeps, and a search's snapshot statement, which
 * numbers what its own snapshot shows so its X-Change-Seq covers exactly the changes it reflects
 * (snapshot-store.ts). Writes of one record keep their order: the later one waits for the
 * earlier one's row lock, so inserts its event after the earlier one committed, with a greater
 * `pos`. No session state: safe behind a transaction pooler.
 *
 * Finding the unnumbered events costs about what was written since the last numbering, whatever
 * the feed's size. A numbered event leaves its unnumbered version dead in the table, and in any
 * index of unnumbered events, until a vacuum removes it; a search of such an index from its
 * start visited every one of them, in every numbering and in every list's snapshot
 * (BENCHMARKS.md, "Finding the unnumbered events"). So each event keeps the id of the
 * transaction that wrote it (`xid`), and the counter keeps the oldest transaction still running
 * when the last numbering that took everything it saw was made (`numbered_xmin`, that snapshot's
 * xmin). A transaction older than that had ended then: its events, if committed, were seen and
 * numbered. So every unnumbered event has an `xid` at or above `numbered_xmin`, and the index of
 * unnumbered events is searched from there (`pendingFrom`).
 */
export const postgresEvents: EventLog = {
  // Plain inserts: no lock taken, nothing read. A VALUES list takes its pos values in order.
  async append(t, trx, events) {
    await appendRows(t, trx, events);
    if (events.length > 0) numberSoon(t);
  },
  appendQuery: (t, db, event) => appender.query(t, db, event),
  written: (t) => numberSoon(t),
  read: (t, q) => numberedFirst(readPage, t, q),
  // Each event's JSON written by the database row by row (eventRowJson), joined here: one string
  // a row to make instead of eight and an object, a page's garbage (and the young collections
  // that promoted it under load) halved. The page's JSON array written by PostgreSQL itself (as
  // SQLite does) cost it twenty times the page's read (BENCHMARKS.md); a row's text costs it
  // about what the row's columns do.
  readJson: (t, q) => numberedFirst(readText, t, q),
  highest: (t) => highestOf(t),
  // Unnumbered events were committed after any reader's highest (a reader numbers what it sees).
  writtenAfter: (t, seq) => sql<SqlBool>`(seq > ${seq} or (seq is null and ${pendingFrom(t)}))`,
  writeOrder: sql`seq nulls last, pos`,
  // Numbered first: an event is removed by its seq, and the gone mark is a seq.
  async sweep(t, olderThan, limit) {
    await numberEvents(t);
    return sweepEvents(t, olderThan, limit);
  },
};

const appender = eventAppender((t, rows) => sql`insert into ${tableRef(t, EVENTS_TABLE)} ${EVENT_COLUMNS} ${rows}`);
const appendRows = appender.append;

/** How long after a write its tenant's new events are numbered, at the latest, by the process that wrote them. */
export const NUMBER_AFTER_MS = 100;

/**
 * Numbers the tenant's new events a moment after a write (one numbering for every write of that
 * moment), so they do not pile up unnumbered while nothing reads the feed: a later numbering
 * would then take every one of them at once. Readers number what is left; a failure here only
 * leaves that to them.
 */
function numberSoon(written: TenantDb): void {
  // Not in the write's own transaction (a keyed write's, a batch's): it is gone by then.
  const t = outsideTransactions(written);
  if (!t) return;
  const state = t.state.get(numberSoon, () => ({ scheduled: false, running: false, again: false }));
  if (state.scheduled) return;
  // One numbering at a time from here: others started beside it would only lose to it and run
  // again, each reading what it reads. Writes meanwhile get one more after it.
  if (state.running) {
    state.again = true;
    return;
  }
  state.scheduled = true;
  const timer = setTimeout(() => {
    state.scheduled = false;
    state.running = true;
    numberEvents(t)
      .catch(() => {})
      .finally(() => {
        state.running = false;
        if (state.again) {
          state.again = false;
          numberSoon(t);
        }
      });
  }, NUMBER_AFTER_MS);
  (timer as { unref?: () => void }).unref?.();
}

const highestNumbered = (t: InSchema) => sql<number>`(select seq from ${tableRef(t, EVENT_COUNTER)})`;

/** The lowest transaction id an unnumbered event can have (see postgresEvents): 0 before the first numbering. */
const LOWEST_PENDING = sql`coalesce(numbered_xmin, '0'::xid8)`;

/**
 * On an unnumbered event (`seq is null`): the bound of its transaction id, which the partial
 * index of unnumbered events (`mrs_events_pending`) searches from.
 */
const pendingFrom = (t: InSchema) => sql<SqlBool>`xid >= (select ${LOWEST_PENDING} from ${tableRef(t, EVENT_COUNTER)})`;

const unnumbered = (t: InSchema) =>
  sql<boolean>`exists (select 1 from ${tableRef(t, EVENTS_TABLE)} where seq is null and ${pendingFrom(t)} limit 1)`;
const readPage = pageReader(highestNumbered, unnumbered);

/**
 * An event row as eventJson writes it. Only the user can hold characters JSON escapes: the stamp
 * is the engine's RFC 3339 text, the collection a definition's name (define.ts: letters, digits,
 * underscores), the op one of EVENT_OPS, `changed` and `record` JSON as written with the change.
 */
const eventRowJson = () =>
  sql<string>`'{"seq":' || seq || ',"at":"' || at || '","collection":"' || collection || '","id":' || record_id || ',"op":"' || op
    || '","changed":' || changed || ',"record":' || record || ',"user":' || coalesce(to_json(username)::text, 'null') || ${parentText} || '}'`;

const readText = pageTextReader(highestNumbered, unnumbered, eventRowJson);

/**
 * A page read, numbered first only when the page's own view shows events committed and not
 * numbered yet: the same view a numbering before it would have left (everything committed then
 * numbered), and a statement fewer while writes are numbered by their own process (numberSoon).
 */
async function numberedFirst<P>(read: (t: TenantDb, q: EventQuery) => Promise<PageRead<P>>, t: TenantDb, q: EventQuery): Promise<P> {
  const first = await read(t, q);
  if (!first.pending) return first.page;
  await numberEvents(t);
  return (await read(t, q)).page;
}

/**
 * CTEs numbering the events the statement's snapshot shows unnumbered (see postgresEvents), for
 * a statement of its own or inside another (a search's snapshot). With `numberedHighest`.
 */
export const numbering = (t: InSchema, limit?: unknown): RawBuilder<unknown> => {
  const counter = tableRef(t, EVENT_COUNTER);
  const events = tableRef(t, EVENTS_TABLE);
  // The unnumbered ones through their partial index, from the counter's bound, in pos order; the
  // rows to number by ctid, which the ANY(...) makes a TID scan: a join the planner costed from
  // stale statistics read the whole table instead, in every numbering. The bound rises to this
  // snapshot's xmin when the numbering takes every event it sees (a LIMIT may leave some).
  const took = limit === undefined ? sql`true` : sql`(select count(*) from mrs_p) < cast(${limit} as bigint)`;
  return sql`mrs_c0 as materialized (select seq as c, ${LOWEST_PENDING} as x from ${counter}),
    mrs_p as materialized (select ctid as tid, row_number() over (order by pos) as rn from ${events}
      where seq is null and xid >= (select x from mrs_c0)
      order by pos${limit === undefined ? sql`` : sql` limit cast(${limit} as bigint)`}),
    mrs_cu as (update ${counter} set seq = seq + (select count(*) from mrs_p),
        numbered_xmin = case when ${took} then pg_snapshot_xmin(pg_current_snapshot()) else numbered_xmin end
      where seq = (select c from mrs_c0) and exists (select 1 from mrs_p) returning seq),
    mrs_eu as (update ${events} as e set seq = (select c from mrs_c0) + mrs_p.rn from mrs_p
      where e.ctid = any (array(select tid from mrs_p)) and e.ctid = mrs_p.tid and exists (select 1 from mrs_cu) returning 1)`;
};

/**
 * The highest seq once `numbering` is done: every event the snapshot shows has a seq up to it.
 * Null when another numbering committed after the snapshot was taken: the statement changed
 * nothing and is run again.
 */
export const numberedHighest = sql<
  number | null
>`(case when not exists (select 1 from mrs_p) then (select c from mrs_c0) else (select seq from mrs_cu) end)`;

/**
 * Events the first numbering statement of a run takes at most, so the usual one stays short.
 * When it takes that many, the next takes twice as many, and so on: each statement searches from
 * the same bound (it rises only with a numbering that took everything it saw), past the dead
 * versions the statements before it left, so batches of one size would make a long backlog cost
 * its square; doubling keeps it about twice its length.
 */
export const NUMBER_BATCH = 5000;

// The batch's size as a parameter: a statement with one is sent as a named prepared statement
// where the pool allows it (server/tenants/named-statements.ts), planned once per connection
// rather than at every numbering and every idle poll of the feed.
// Built each time, not compiled once: it runs once a moment per tenant, not once a request.
const numberStatement = (t: TenantDb, limit: number) =>
  sql<{
    highest: unknown;
    numbered: unknown;
  }>`with ${numbering(t, limit)} select ${numberedHighest} as highest, (select count(*) from mrs_p) as numbered`.execute(t.db);

/** Times a numbering is run again after losing to another before giving up (each loss is another's progress). */
export const NUMBERING_TRIES = 100;

/** What a request that lost the numbering NUMBERING_TRIES times answers. */
export const numberingLost = () =>
  new EngineError(
    'unavailable',
    `The change feed was numbered by others ${NUMBERING_TRIES} times in a row while this request tried: try again.`,
  );

/** Numbers the events committed and not numbered yet; returns the highest seq. */
async function numberEvents(t: TenantDb): Promise<number> {
  let limit = NUMBER_BATCH;
  for (let lost = 0; lost < NUMBERING_TRIES;) {
    const row = (await numberStatement(t, limit)).rows[0];
    const highest = row?.highest;
    if (highest === null || highest === undefined) lost++;
    else if (Number(row!.numbered) < limit) return Number(highest);
    else limit *= 2;
  }
  throw numberingLost();
}

/** Many tenants' polls in one statement: see batchedHighest. */
const highestOf = batchedHighest(
  (t) => numberEvents(t),
  EVENT_COUNTER,
  (t) => pendingFrom(t),
);
