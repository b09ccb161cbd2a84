import type { Kysely, Migration } from 'kysely';

/**
 * When a user was disabled (RFC 3339 UTC text; null while it is enabled). A disabled user's
 * tokens and keys are refused like a revoked key's, and it cannot authenticate.
 */
export const userDisabled: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('mrs_users').addColumn('disabled', 'text').execute();
  },
};
