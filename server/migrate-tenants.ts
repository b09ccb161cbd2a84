import { refusalsOf, type TenantPlan } from '../engine/schema/index.ts';
import { migratedLine, planText } from './migrate-plan-text.ts';
import type { Service } from './service.ts';

export interface MigrateTenantsOptions {
  /** Print the plans and change nothing. */
  readonly dryRun: boolean;
  /** Where the plans go (`--dry-run`). */
  readonly out: (text: string) => void;
  /** Where each tenant's progress line goes. */
  readonly progress: (line: string) => void;
}

/**
 * `mrs migrate`: plans every tenant first, and only when no plan refuses anything migrates them
 * one after another (each all or nothing), so one tenant's refusal stops before any tenant
 * changes. The service must open tenants without migrating them (`migrateOnOpen: false`).
 * Returns every refusal, one line each naming tenant, resource and field (empty: all went).
 */
export async function migrateTenants(service: Service, options: MigrateTenantsOptions): Promise<string[]> {
  const planned: { name: string; plan: TenantPlan }[] = [];
  for (const name of await service.tenants.list()) {
    const tenant = await service.tenants.get(name);
    if (tenant) planned.push({ name, plan: await service.engine.plan(tenant) });
  }
  const refusals = planned.flatMap(({ name, plan }) => refusalsOf(plan).map((r) => `tenant ${name}: ${r}`));
  if (options.dryRun) for (const { plan } of planned) options.out(planText(plan));
  if (options.dryRun || refusals.length > 0) return refusals;
  for (const { name, plan } of planned) {
    // Planned again inside its transaction: a change since is refused there, that tenant unchanged.
    await service.engine.migrate((await service.tenants.get(name))!);
    options.progress(migratedLine(plan));
  }
  return [];
}
