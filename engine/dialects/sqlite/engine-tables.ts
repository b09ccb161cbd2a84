import type { Kysely } from 'kysely';
import { EVENTS_TABLE } from '../../events/event-log.ts';
import {
  createCursorExpiryIndex,
  createIdempotencyTable,
  createMetaTable,
  cursorMetadataColumns,
  eventColumns,
  insertGoneMark,
} from '../engine-tables.ts';

/** The engine's own tables as SQLite keeps them: the baseline migration (engine/schema/migrations/). */
export async function createSqliteEngineTables(db: Kysely<any>): Promise<void> {
  await createMetaTable(db);
  // Ids packed as fixed-width text (engine/cursor/layout.ts); change_seq: the feed's seq a
  // snapshot reflects; as_of_id: a lazy cursor's largest id of the table (engine/cursor/lazy.ts).
  await cursorMetadataColumns(db.schema.createTable('mrs_cursors').ifNotExists())
    .addColumn('ids', 'text', (c) => c.notNull())
    .addColumn('change_seq', 'bigint')
    .addColumn('as_of_id', 'bigint')
    .addPrimaryKeyConstraint('mrs_cursors_pk', ['id', 'chunk'])
    .execute();
  await createCursorExpiryIndex(db);
  // AUTOINCREMENT: seqs never reused, also after retention empties the table (event-log.ts);
  // before_row: the row an update replaced, for lazy snapshots.
  await eventColumns(
    db.schema
      .createTable(EVENTS_TABLE)
      .ifNotExists()
      .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()),
  )
    .addColumn('before_row', 'text')
    .execute();
  await insertGoneMark(db);
  await createIdempotencyTable(db);
}
