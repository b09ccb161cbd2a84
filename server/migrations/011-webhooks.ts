import type { Kysely, Migration } from 'kysely';

/**
 * A tenant's webhooks (SPEC 9). `position` is the feed seq delivered up to; `collections` a JSON
 * array (empty: every collection). Times a process compares (`next_attempt_at`, `lease_until`)
 * are epoch milliseconds, so a claim is one comparison on both databases; the rest RFC 3339 text.
 * The lease names the process delivering the webhook's events now (SPEC 9: one process each).
 */
export const webhooks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mrs_webhooks')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('collections', 'text', (c) => c.notNull())
      .addColumn('position', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('failing_since', 'bigint')
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
  },
};
