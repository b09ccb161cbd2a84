import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { NO_ROWS, readFacts } from './facts.ts';
import { planTable, questionsFor, type TablePlan } from './plan.ts';
import { tableSpec } from './table.ts';

/** What migrating one tenant does to its resource tables, or refuses. */
export interface TenantPlan {
  readonly tenant: string;
  readonly tables: readonly TablePlan[];
}

export const refusalsOf = (plan: TenantPlan): string[] => plan.tables.flatMap((t) => t.refusals);

/** Reads each resource table of a tenant (schema, then the facts its rules need) and plans it; changes nothing. */
export async function planTenant(t: TenantDb, registry: Registry): Promise<TenantPlan> {
  const tables: TablePlan[] = [];
  for (const resource of registry.resources.values()) {
    const spec = tableSpec(resource, t.dialect);
    const live = await t.dialect.liveTable(t, spec.name);
    const facts = live === undefined ? NO_ROWS : await readFacts(t, spec.name, questionsFor(spec, live));
    tables.push(planTable(spec, live, facts));
  }
  return { tenant: t.key, tables };
}

/** A plan with refusals: the tenant was left as it was. */
export class MigrationRefused extends Error {
  constructor(readonly plan: TenantPlan) {
    const lines = refusalsOf(plan).map((r) => `\n  ${r}`);
    super(`tenant ${plan.tenant}: migration refused, nothing changed:${lines.join('')}`);
    this.name = 'MigrationRefused';
  }
}
