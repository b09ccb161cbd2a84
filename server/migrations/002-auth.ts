import type { Kysely, Migration } from 'kysely';

/**
 * Users, roles and API keys of one tenant. Dates are RFC 3339 UTC text (they sort as text on
 * both databases). A key row holds only the SHA-256 of the key, never the key; `revoked` is
 * when it was revoked (null while it is live).
 */
export const auth: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mrs_users')
      .ifNotExists()
      .addColumn('username', 'text', (c) => c.primaryKey())
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('mrs_roles')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('created', 'text', (c) => c.notNull())
      .execute();
    // One row per granted (collection, action); '*' stands for every collection or every action.
    await db.schema
      .createTable('mrs_role_grants')
      .ifNotExists()
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('mrs_role_grants_pk', ['role', 'collection', 'action'])
      .execute();
    await db.schema
      .createTable('mrs_user_roles')
      .ifNotExists()
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('mrs_user_roles_pk', ['username', 'role'])
      .execute();
    await db.schema
      .createTable('mrs_api_keys')
      .ifNotExists()
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('last_used', 'text')
      .addColumn('revoked', 'text')
      .execute();
    await db.schema.createIndex('mrs_api_keys_username_idx').ifNotExists().on('mrs_api_keys').column('username').execute();
  },
};
