import { Migrator, type Migration } from 'kysely';
import { engineMigrations } from './migrations/index.ts';
import type { TenantDb } from '../dialects/types.ts';

/** Runs the engine's own Kysely migrations in a tenant database. */
export async function migrateEngineTables(t: TenantDb, extra: Record<string, Migration> = {}): Promise<void> {
  const migrator = new Migrator({
    db: t.db,
    provider: { getMigrations: async () => ({ ...engineMigrations(t), ...extra }) },
    migrationTableName: 'mrs_migration',
    migrationLockTableName: 'mrs_migration_lock',
    allowUnorderedMigrations: true,
    ...(t.schema !== undefined ? { migrationTableSchema: t.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? ''} failed in ${t.key}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
