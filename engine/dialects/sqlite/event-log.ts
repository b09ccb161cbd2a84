import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { EVENTS_TABLE, type EventLog } from '../../events/event-log.ts';
import { eventAppender, EVENT_COLUMNS, pageJsonReader, pageReader } from '../../events/event-sql.ts';
import { sweepEvents } from '../../events/event-sweep.ts';

/**
 * The highest seq ever given, which AUTOINCREMENT keeps in sqlite_sequence: unlike max(seq), it
 * does not fall back when retention empties the table.
 */
export const highestSeqSql = () => sql<number>`coalesce((select seq from sqlite_sequence where name = ${sql.lit(EVENTS_TABLE)}), 0)`;

/** The feed's INSERT of event rows (event-sql.ts's VALUES list). */
const appender = eventAppender((_t, rows) => sql`insert into ${sql.table(EVENTS_TABLE)} ${EVENT_COLUMNS} ${rows}`);

/**
 * SQLite's change feed. A database has one writer at a time (group commit runs every write of a
 * file in one connection, each in its savepoint, or a create and its event back to back), and
 * each write inserts its events last: seq order (AUTOINCREMENT, never reused, also after
 * retention) is commit order.
 */
export const sqliteEvents: EventLog = {
  // A VALUES list is inserted in its order: seqs follow the order given.
  append: appender.append,
  appendQuery: appender.query,
  // Numbered as they are written: nothing to do later.
  written: () => undefined,
  read: async (t, q) => (await readPage(t, q)).page,
  readJson: pageJsonReader(highestSeqSql),
  highest: async (t) => Number((await highestSeq(t.db)).rows[0]?.seq ?? 0),
  writtenAfter: (_t, seq) => sql<SqlBool>`seq > ${seq}`,
  writeOrder: sql`seq`,
  sweep: sweepEvents,
};

/** Its events are numbered as they are written: never pending. */
const readPage = pageReader(highestSeqSql);

// Built each time: read by a feed's watcher once a poll, not once a request.
const highestSeq = (db: Kysely<any>) => sql<{ seq: unknown }>`select ${highestSeqSql()} as seq`.execute(db);
