import type { Engine } from '../engine/create-engine.ts';
import type { TenantDb } from '../engine/dialects/types.ts';
import { refusalsOf, type TenantPlan } from '../engine/schema/index.ts';
import { migratedLine, planText } from './migrate-plan-text.ts';
import type { Service } from './service.ts';
import type { TenantStore } from './tenants/index.ts';

export interface MigrateTenantsOptions {
  /** Print the plans and change nothing. */
  readonly dryRun: boolean;
  /** Plan every tenant, also those that recorded the current fingerprint. */
  readonly all?: boolean;
  /** How many tenants are planned, and then migrated, at once (default 1). */
  readonly concurrency?: number;
  /** Where the plans go (`--dry-run`). */
  readonly out: (text: string) => void;
  /** Where each tenant's progress line goes. */
  readonly progress: (line: string) => void;
  /** Told after each tenant planned, and after each migrated: a progress bar's figures. */
  readonly step?: (phase: 'planning' | 'migrating', done: number, total: number) => void;
  /** Told once at the end, what was done (also when refused: nothing migrated). */
  readonly summary?: (s: MigrateSummary) => void;
}

export interface MigrateSummary {
  /** Tenants whose fingerprint differs (all of them with `all`): each planned. */
  readonly planned: number;
  readonly migrated: number;
  /** Tenants that recorded the current fingerprint: one row read each, nothing planned. */
  readonly unchanged: number;
  /** Tenants whose plan refuses something. */
  readonly refused: number;
  readonly ms: number;
}

/** Each store's fingerprints, read once in one query; a migration this process makes updates it. */
const known = new WeakMap<TenantStore, Promise<Map<string, string>>>();
const fingerprintsOf = (tenants: TenantStore) => {
  let map = known.get(tenants);
  if (!map) known.set(tenants, (map = tenants.fingerprints()));
  return map;
};

async function recordMigrated(tenants: TenantStore, clientDb: string, fingerprint: string): Promise<void> {
  await tenants.recordFingerprint(clientDb, fingerprint);
  (await fingerprintsOf(tenants)).set(clientDb, fingerprint);
}

/** A tenant being opened: migrated unless it recorded the engine's current fingerprint. */
export async function migrateIfChanged(engine: Engine, tenants: TenantStore, t: TenantDb): Promise<void> {
  if ((await fingerprintsOf(tenants)).get(t.key) === engine.schemaFingerprint) return;
  await engine.migrate(t);
  await recordMigrated(tenants, t.key, engine.schemaFingerprint);
}

/**
 * Runs `work` on every item, at most `limit` at once; after a failure no new item starts, those
 * running finish, and the first failure is thrown.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { e: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (e) {
        failure ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.e;
}

/**
 * `mrs migrate` and every start: plans every tenant whose recorded fingerprint differs from the
 * definitions' (the others cost one row of one query), and only when no plan refuses anything
 * migrates them, `concurrency` at a time, each all or nothing, so one tenant's refusal stops
 * before any tenant changes. The service must open tenants without migrating them
 * (`migrateOnOpen: false`). Returns every refusal, one line each naming tenant, resource and
 * field (empty: all went).
 */
export async function migrateTenants(service: Service, options: MigrateTenantsOptions): Promise<string[]> {
  const started = performance.now();
  const { engine, tenants } = service;
  const limit = options.concurrency ?? 1;
  const recorded = await tenants.fingerprints();
  const names = await tenants.list();
  const due = options.all ? names : names.filter((name) => recorded.get(name) !== engine.schemaFingerprint);
  const unchanged = names.length - due.length;
  if (unchanged > 0) options.progress(`${unchanged} tenant${unchanged === 1 ? '' : 's'} already up to date`);
  const plans = new Map<string, TenantPlan>();
  await eachLimited(due, limit, async (name) => {
    const tenant = await tenants.get(name);
    if (tenant) plans.set(name, await engine.plan(tenant));
    options.step?.('planning', plans.size, due.length);
  });
  // In the order listed, whatever order the plans were made in.
  const planned = due.flatMap((name) => (plans.has(name) ? [{ name, plan: plans.get(name)! }] : []));
  const refusing = planned.map(({ name, plan }) => refusalsOf(plan).map((r) => `tenant ${name}: ${r}`)).filter((r) => r.length > 0);
  const refusals = refusing.flat();
  const summary = (migrated: number) =>
    options.summary?.({ planned: planned.length, migrated, unchanged, refused: refusing.length, ms: performance.now() - started });
  if (options.dryRun) for (const { plan } of planned) options.out(planText(plan));
  if (options.dryRun || refusals.length > 0) {
    summary(0);
    return refusals;
  }
  let migrated = 0;
  try {
    await eachLimited(planned, limit, async ({ name, plan }) => {
      // Planned again inside its transaction: a change since is refused there, that tenant unchanged.
      await engine.migrate((await tenants.get(name))!);
      await recordMigrated(tenants, name, engine.schemaFingerprint);
      options.progress(migratedLine(plan));
      options.step?.('migrating', ++migrated, planned.length);
    });
  } finally {
    summary(migrated);
  }
  return [];
}
