import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { NO_ROWS, readFacts, type Question } from './facts.ts';
import { planTable, questionsFor, type TablePlan } from './plan.ts';
import { appliedSteps, pendingOf, type MigrationStep } from './steps.ts';
import { tableSpec } from './table.ts';

/** What migrating one tenant does to its resource tables, or refuses. */
export interface TenantPlan {
  readonly tenant: string;
  readonly tables: readonly TablePlan[];
  /** The deployment's migration steps this tenant has not run, in order (run after the tables' changes). */
  readonly steps?: readonly string[];
  /** Steps that ran and changed since: refused. */
  readonly changedSteps?: readonly string[];
}

/**
 * What stops a tenant's migration: the tables' refusals (those of the rows' data wait for the
 * pending steps, and are checked again after them) and steps changed after they ran.
 */
export const refusalsOf = (plan: TenantPlan): string[] => {
  const waiting = (plan.steps?.length ?? 0) > 0;
  return [
    ...plan.tables.flatMap((t) => (waiting ? t.refusals.filter((r) => !t.curable.includes(r)) : t.refusals)),
    ...(plan.changedSteps ?? []),
  ];
};

/** Reads the resource tables of a tenant (their schema, then the facts their rules need: two statements) and plans them; changes nothing. */
export async function planTenant(t: TenantDb, registry: Registry, steps: readonly MigrationStep[] = []): Promise<TenantPlan> {
  const specs = [...registry.resources.values()].map((resource) => tableSpec(resource, t.supports));
  const lives = await t.catalog.liveTables(
    t,
    specs.map((spec) => spec.name),
  );
  const asked = new Map<string, Question[]>();
  for (const spec of specs) if (lives.has(spec.name)) asked.set(spec.name, questionsFor(spec, lives.get(spec.name)));
  const facts = await readFacts(t, asked);
  const tables = specs.map((spec) => planTable(spec, lives.get(spec.name), facts.get(spec.name) ?? NO_ROWS));
  if (steps.length === 0) return { tenant: t.key, tables };
  const { pending, changed } = pendingOf(steps, await appliedSteps(t));
  return { tenant: t.key, tables, steps: pending.map((s) => s.name), changedSteps: changed };
}

/** A plan with refusals: the tenant was left as it was. */
export class MigrationRefused extends Error {
  constructor(
    readonly plan: TenantPlan,
    when?: string,
    more: readonly string[] = [],
  ) {
    const lines = [...refusalsOf(plan), ...more].map((r) => `\n  ${r}`);
    super(`tenant ${plan.tenant}: migration refused${when ? ` ${when}` : ''}, nothing changed:${lines.join('')}`);
    this.name = 'MigrationRefused';
  }
}
