import type { Kysely, Migration } from 'kysely';

/**
 * A cursor's head row keeps the change-feed seq its snapshot reflects (SPEC 9: lists join the
 * feed), so every page of it repeats `X-Change-Seq`. Cursors made before have none.
 */
export const cursorChangeSeq: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('mrs_cursors').addColumn('change_seq', 'bigint').execute();
  },
};
