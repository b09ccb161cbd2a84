import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { migrateEngineTablesIn, type MigrationOwners } from './engine-tables.ts';
import { migrateResources } from './migrate.ts';
import { planTenant, type TenantPlan } from './plan-tenant.ts';
import type { MigrationStep } from './steps.ts';

export { schemaFingerprint } from './fingerprint.ts';
export { DEFINITIONS_RETRY_AFTER_S } from './still-serves.ts';
export { checkSteps, StepFailed, type MigrationStep, type StepContext } from './steps.ts';
export { checkMigrationOwners, type MigrationOwners } from './engine-tables.ts';
export { MigrationRefused, planTenant, refusalsOf, type TenantPlan } from './plan-tenant.ts';
export { isEmptyPlan, type TablePlan } from './plan.ts';

/**
 * Everything a tenant database needs: one table per resource, then the engine's tables and the
 * hosts' (each owner's migrations), all in one transaction, so a refused plan, or a process
 * stopped part way, leaves the tenant as it was.
 */
export async function migrateTenant(
  t: TenantDb,
  registry: Registry,
  hosts: MigrationOwners = {},
  steps: readonly MigrationStep[] = [],
): Promise<void> {
  await t.db.transaction().execute(async (trx) => {
    await t.locks.forMigration(trx, t.key);
    await migrateResources({ ...t, db: trx }, registry, steps);
    await migrateEngineTablesIn({ ...t, db: trx }, hosts);
  });
}

/**
 * The plan as the migration lock sees it, in one transaction: after a migration another process
 * is running on the tenant, never half of it (a plan read beside one may refuse what it did).
 */
export const planTenantLocked = (t: TenantDb, registry: Registry, steps: readonly MigrationStep[] = []): Promise<TenantPlan> =>
  t.db.transaction().execute(async (trx) => {
    await t.locks.forMigration(trx, t.key);
    return planTenant({ ...t, db: trx }, registry, steps);
  });
