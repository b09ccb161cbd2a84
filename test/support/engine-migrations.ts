import { Migrator } from 'kysely';
import type { TenantDb } from '../../engine/index.ts';
import { engineMigrations } from '../../engine/schema/migrations/index.ts';

/**
 * Runs the engine's own migrations named before `before` in the tenant's schema, as a tenant
 * made by an earlier release has them; `migrateEngineTables` then brings it up to date. Returns
 * the migrator's error, if any.
 */
export async function migrateEngineTablesBefore(t: TenantDb, schema: string, before: string): Promise<unknown> {
  const earlier = Object.fromEntries(Object.entries(engineMigrations(t)).filter(([name]) => name < before));
  const migrator = new Migrator({
    db: t.db,
    provider: { getMigrations: async () => earlier },
    migrationTableName: 'mrs_migration',
    migrationLockTableName: 'mrs_migration_lock',
    allowUnorderedMigrations: true,
    migrationTableSchema: schema,
  });
  return (await migrator.migrateToLatest()).error;
}
