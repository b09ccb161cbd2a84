import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A cursor's expiry lives on its head row (chunk 0): the only row a page read checks, touch
 * updates and the sweep looks for. Indexing it there alone keeps the other chunk rows of a
 * snapshot out of the index, so a snapshot writes one index entry for its expiry, not one a chunk.
 */
export const cursorExpiryHead: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('mrs_cursors_expires_idx').ifExists().execute();
    await db.schema
      .createIndex('mrs_cursors_head_expires_idx')
      .ifNotExists()
      .on('mrs_cursors')
      .column('expires_at')
      .where(sql.ref('chunk'), '=', 0)
      .execute();
  },
};
