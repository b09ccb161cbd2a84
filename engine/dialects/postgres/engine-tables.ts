import { sql, type Kysely } from 'kysely';
import { EVENTS_TABLE } from '../../events/event-log.ts';
import {
  createCursorExpiryIndex,
  createIdempotencyTable,
  createMetaTable,
  cursorMetadataColumns,
  eventColumns,
  insertGoneMark,
} from '../engine-tables.ts';
import { chunkIds } from './chunk-ids.ts';
import { EVENT_COUNTER } from './event-log.ts';

/** The engine's own tables as PostgreSQL keeps them: the baseline migration (engine/schema/migrations/). */
export async function createPostgresEngineTables(db: Kysely<any>): Promise<void> {
  await createMetaTable(db);
  // Cursors are throwaway: unlogged, they skip the write-ahead log. A chunk row of ids with its
  // metadata passes the ~2 KB at which PostgreSQL compresses a row's long values (TOAST), which
  // cost every page read a decompression (BENCHMARKS.md): compressed only past 8,160 bytes, which
  // no chunk row reaches. `ids` in chunk-ids.ts's type; `deltas`: ascending ids as deltas
  // (engine/cursor/deltas.ts), a character an id where `ids` takes eight bytes.
  await cursorMetadataColumns(
    db.schema
      .createTable('mrs_cursors')
      .ifNotExists()
      .modifyFront(sql`unlogged`),
  )
    .addColumn('ids', chunkIds.columnType, (c) => c.notNull())
    .addColumn('change_seq', 'bigint')
    .addColumn('deltas', 'text')
    .addColumn('as_of_id', 'bigint')
    .addPrimaryKeyConstraint('mrs_cursors_pk', ['id', 'chunk'])
    .modifyEnd(sql`with (toast_tuple_target = 8160)`)
    .execute();
  await createCursorExpiryIndex(db);
  // Events are numbered after they commit (event-log.ts): `seq` null until then, `pos` their
  // insertion order, `xid` the writing transaction, from which the unnumbered ones are found.
  await eventColumns(db.schema.createTable(EVENTS_TABLE).ifNotExists().addColumn('seq', 'bigint'))
    .addColumn('pos', 'bigserial', (c) => c.notNull())
    .addColumn('before_row', 'text')
    .addColumn('xid', sql`xid8`, (c) => c.defaultTo(sql`pg_current_xact_id()`))
    .execute();
  await db.schema
    .createIndex(`${EVENTS_TABLE}_seq`)
    .unique()
    .on(EVENTS_TABLE)
    .column('seq')
    .where(sql.ref('seq'), 'is not', null)
    .execute();
  await db.schema.createIndex(`${EVENTS_TABLE}_pending`).on(EVENTS_TABLE).column('xid').where(sql.ref('seq'), 'is', null).execute();
  await db.schema
    .createTable(EVENT_COUNTER)
    .ifNotExists()
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('numbered_xmin', sql`xid8`)
    .execute();
  await db.insertInto(EVENT_COUNTER).values({ seq: 0 }).execute();
  await insertGoneMark(db);
  await createIdempotencyTable(db);
}
