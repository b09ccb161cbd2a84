import type { Kysely, Migration } from 'kysely';

/** Key-value settings of the engine and the server, shared by every process on the database. */
export const engineMeta: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mrs_meta')
      .ifNotExists()
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
};
