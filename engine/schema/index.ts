import type { Migration } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { migrateEngineTables } from './engine-tables.ts';
import { migrateResources } from './migrate.ts';

/** Everything a tenant database needs: the engine's tables, then one table per resource. */
export async function migrateTenant(t: TenantDb, registry: Registry, extra: Record<string, Migration> = {}): Promise<void> {
  await migrateEngineTables(t, extra);
  await t.db.transaction().execute(async (trx) => {
    await t.dialect.lockForMigration(trx, t.key);
    await migrateResources({ ...t, db: trx }, registry);
  });
}
