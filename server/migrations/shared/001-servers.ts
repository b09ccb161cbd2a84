import type { Kysely, Migration } from 'kysely';

/**
 * The servers running on one set of data, each as its last heartbeat said (server/roster.ts).
 * `if not exists`: a release before kept the same table, made on first use.
 */
export const servers: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('servers')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started', 'text', (c) => c.notNull())
      .addColumn('seen', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .execute();
  },
};
