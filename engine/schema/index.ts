import type { Migration } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { migrateEngineTables } from './engine-tables.ts';
import { migrateResources } from './migrate.ts';

export { schemaFingerprint } from './fingerprint.ts';
export { MigrationRefused, planTenant, refusalsOf, type TenantPlan } from './plan-tenant.ts';
export { isEmptyPlan, type TablePlan } from './plan.ts';

/**
 * Everything a tenant database needs: one table per resource, then the engine's tables. The
 * resource tables go first, in one transaction, so a refused plan leaves the tenant as it was.
 */
export async function migrateTenant(t: TenantDb, registry: Registry, extra: Record<string, Migration> = {}): Promise<void> {
  await t.db.transaction().execute(async (trx) => {
    await t.dialect.lockForMigration(trx, t.key);
    await migrateResources({ ...t, db: trx }, registry);
  });
  await migrateEngineTables(t, extra);
}
