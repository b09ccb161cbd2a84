import { sql, type Kysely } from 'kysely';
import { compiledOnce } from '../../compiled-queries.ts';
import { EVENTS_TABLE, type EventLog } from '../../events/event-log.ts';
import { appender, createEventsTable, EVENT_ROW_COLUMNS, pageReader, sweepEvents } from '../../events/event-sql.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';

/** The tenant's one-row counter of seqs. */
const COUNTER = 'mrs_event_counter';

/**
 * PostgreSQL's change feed. A sequence would not do: its values are taken in one order and
 * committed in another, so a reader that saw seq N could later see N-1 appear when that
 * transaction commits a moment after. Instead each write takes its seqs from the tenant's counter
 * row (`seq = seq + n`) in the same statement that inserts its events, the last of its
 * transaction: the row stays locked until the commit, so the next writer of the tenant takes
 * the next numbers only after this one committed (its lock is released only once the commit is
 * visible), and seq order is commit order across every process and connection on the database.
 * A reader that sees the counter at N in its snapshot sees every event up to N and none after:
 * the counter is the highest seq committed. The lock is held only from the event insert to the
 * commit. No session state: safe behind a transaction pooler.
 */
export const postgresEvents: EventLog = {
  async createTables(db: Kysely<any>) {
    await createEventsTable(db, (table) => table.addColumn('seq', 'bigint', (c) => c.primaryKey()));
    await db.schema.createTable(COUNTER).ifNotExists().addColumn('seq', 'bigint', (c) => c.notNull()).execute();
    await db.insertInto(COUNTER).values({ seq: 0 }).execute();
  },
  append: appender(
    true,
    (t, rows, n) => sql`with c as (update ${tableRef(t, COUNTER)} set seq = seq + ${sql.lit(n)} returning seq)
      insert into ${tableRef(t, EVENTS_TABLE)} (seq, at, collection, record_id, op, changed, record, username)
      select c.seq - ${sql.lit(n)} + e.ord, e.at, e.collection, e.record_id, e.op, e.changed, e.record, e.username
      from c, (${rows}) as e ${EVENT_ROW_COLUMNS}`,
  ),
  read: pageReader((t) => highestSeqSql(t)),
  highest: async (t) => Number((await highestSeq(t.db)).rows[0]?.seq ?? 0),
  sweep: sweepEvents,
};

const highestSeq = compiledOnce<[], { seq: unknown }>((db) => db.selectFrom(COUNTER).select('seq').compile());

/** The highest seq committed, as a value of a statement. */
export const highestSeqSql = (t: TenantDb) => sql<number>`(select seq from ${tableRef(t, COUNTER)})`;
