import type { Migration } from 'kysely';

/**
 * Idempotency keys (SPEC 10): one row per user and key, holding what the first request asked
 * (a hash of its method, path and body) and the answer it got, until `expires_at` (epoch ms).
 * A key's row is written in the transaction of the write it answers (engine/idempotency/).
 */
export const idempotencyKeys: Migration = {
  async up(db) {
    await db.schema
      .createTable('mrs_idempotency')
      .ifNotExists()
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('location', 'text')
      .addColumn('etag', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('mrs_idempotency_pk', ['owner', 'key'])
      .execute();
    await db.schema.createIndex('mrs_idempotency_expires_idx').ifNotExists().on('mrs_idempotency').column('expires_at').execute();
  },
};
