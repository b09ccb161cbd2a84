import type { Kysely, Migration } from 'kysely';

/**
 * Refresh tokens of one tenant, each row only the SHA-256 of its token. A family is every token
 * rotated from one `/authenticate`: a second use of any of them ends the family. Dates are
 * RFC 3339 UTC text, as in the other service tables (they compare as text on both databases).
 */
export const refreshTokens: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mrs_refresh_tokens')
      .ifNotExists()
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('family', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('expires', 'text', (c) => c.notNull())
      .addColumn('used', 'text')
      .execute();
    await db.schema.createIndex('mrs_refresh_tokens_family_idx').ifNotExists().on('mrs_refresh_tokens').column('family').execute();
    await db.schema.createIndex('mrs_refresh_tokens_expires_idx').ifNotExists().on('mrs_refresh_tokens').column('expires').execute();
    await db.schema.createIndex('mrs_refresh_tokens_key_idx').ifNotExists().on('mrs_refresh_tokens').column('key_id').execute();
  },
};
