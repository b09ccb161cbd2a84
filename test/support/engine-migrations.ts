import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { expect } from 'vitest';
import { tenantDb, type TenantDb } from '../../engine/index.ts';
import { engineMigrations } from '../../engine/schema/migrations/index.ts';
import { freshPostgresDatabase, testPool } from './pg.ts';

/**
 * Runs `test` on a tenant (schema "old" of a fresh PostgreSQL database, `db` its handle) made as
 * an earlier release made it: the engine's own migrations named before `before` only.
 * `migrateEngineTables` then brings it up to date. The database is dropped after.
 */
export async function withEarlierTenant(before: string, test: (t: TenantDb, db: Kysely<any>) => Promise<void>): Promise<void> {
  const fresh = await freshPostgresDatabase();
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url) }) });
  try {
    await sql`create schema "old"`.execute(db);
    const t = tenantDb(db, { schema: 'old', key: 'old' });
    const earlier = Object.fromEntries(Object.entries(engineMigrations(t)).filter(([name]) => name < before));
    const migrator = new Migrator({
      db: t.db,
      provider: { getMigrations: async () => earlier },
      migrationTableName: 'mrs_migration',
      migrationLockTableName: 'mrs_migration_lock',
      allowUnorderedMigrations: true,
      migrationTableSchema: 'old',
    });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await test(t, db);
  } finally {
    await db.destroy();
    await fresh.drop();
  }
}
