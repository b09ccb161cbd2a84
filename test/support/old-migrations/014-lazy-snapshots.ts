import type { Kysely, Migration } from 'kysely';

/**
 * Snapshots taken lazily (engine/cursor/lazy.ts). An update or soft delete keeps the row it
 * replaced beside its event (`before_row`, the row's columns as JSON: never shown by the feed),
 * so a snapshot can be made later as of the seq it was asked at; a cursor's head row keeps the
 * largest id of the table then (`as_of_id`), and is lazy while it holds one. Events and cursors
 * written before keep null: an update event without its row cannot make a lazy snapshot, which
 * then answers 410 (cursors are ephemeral by contract).
 */
export const lazySnapshots: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('mrs_events').addColumn('before_row', 'text').execute();
    await db.schema.alterTable('mrs_cursors').addColumn('as_of_id', 'bigint').execute();
  },
};
