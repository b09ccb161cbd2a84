import type { Engine } from '../engine/create-engine.ts';
import { EngineError } from '../engine/errors.ts';
import type { TenantDb } from '../engine/dialects/types.ts';
import { DEFINITIONS_RETRY_AFTER_S, refusalsOf, type TenantPlan } from '../engine/schema/index.ts';
import { migratedLine, planText } from './migrate-plan-text.ts';
import type { Service } from './service.ts';
import type { TenantStore } from './tenants/index.ts';

export interface MigrateTenantsOptions {
  /** Print the plans and change nothing. */
  readonly dryRun: boolean;
  /** Plan every tenant, also those that recorded the current fingerprint. */
  readonly all?: boolean;
  /** Where the plans go (`--dry-run`). */
  readonly out: (text: string) => void;
  /** Where each tenant's progress line goes. */
  readonly progress: (line: string) => void;
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

/** Tenants whose migration on opening failed, each with when the next request may try again. */
const failedUntil = new WeakMap<TenantStore, Map<string, { until: number; checked: number; cause: unknown }>>();
const RETRY_MS = DEFINITIONS_RETRY_AFTER_S * 1000;

/**
 * A tenant this server cannot serve yet: its tables are not at the server's definitions and
 * migrating it failed (refused, a step threw). The client reads the detail; the message keeps
 * the cause, for the command line and the log.
 */
export class TenantBehind extends EngineError {
  constructor(clientDb: string, cause: unknown) {
    super(
      'definitions-changed',
      `The tables of tenant ${clientDb} are not yet at this server's definitions (mrs migrate brings them there). Try again shortly.`,
      [],
      { 'retry-after': String(DEFINITIONS_RETRY_AFTER_S) },
    );
    this.message = cause instanceof Error ? cause.message : String(cause);
    this.cause = cause;
  }
}

/**
 * A tenant being opened: migrated unless it recorded the engine's current fingerprint (read
 * again first: `mrs migrate` or another server may have migrated it since). When migrating
 * fails (`onFailed` is told why), that tenant answers 503 with Retry-After, trying again at most
 * once per interval, and its neighbours are served as ever.
 */
export async function migrateIfChanged(engine: Engine, tenants: TenantStore, t: TenantDb, onFailed?: (e: unknown) => void): Promise<void> {
  const known = await fingerprintsOf(tenants);
  if (known.get(t.key) === engine.schemaFingerprint) return;
  let failed = failedUntil.get(tenants);
  if (!failed) failedUntil.set(tenants, (failed = new Map()));
  const last = failed.get(t.key);
  // While a failed tenant waits, its fingerprint is read at most once a second, to see `mrs migrate` done.
  if (last !== undefined && Date.now() - last.checked < 1000) throw new TenantBehind(t.key, last.cause);
  const recorded = (await tenants.fingerprints()).get(t.key);
  if (recorded !== undefined) known.set(t.key, recorded);
  if (recorded === engine.schemaFingerprint) return void failed.delete(t.key);
  if (last !== undefined && Date.now() < last.until) {
    failed.set(t.key, { ...last, checked: Date.now() });
    throw new TenantBehind(t.key, last.cause);
  }
  try {
    await engine.migrate(t);
  } catch (e) {
    failed.set(t.key, { until: Date.now() + RETRY_MS, checked: Date.now(), cause: e });
    onFailed?.(e);
    throw new TenantBehind(t.key, e);
  }
  failed.delete(t.key);
  await recordMigrated(tenants, t.key, engine.schemaFingerprint);
}

/**
 * `mrs migrate` and every start: plans every tenant whose recorded fingerprint differs from the
 * definitions' (the others cost one row of one query), and only when no plan refuses anything
 * migrates them one after another (each all or nothing), so one tenant's refusal stops before any
 * tenant changes. The service must open tenants without migrating them (`migrateOnOpen: false`).
 * Returns every refusal, one line each naming tenant, resource and field (empty: all went).
 */
export async function migrateTenants(service: Service, options: MigrateTenantsOptions): Promise<string[]> {
  const { engine, tenants } = service;
  const recorded = await tenants.fingerprints();
  const planned: { name: string; plan: TenantPlan }[] = [];
  let current = 0;
  for (const name of await tenants.list()) {
    if (!options.all && recorded.get(name) === engine.schemaFingerprint) {
      current++;
      continue;
    }
    const tenant = await tenants.get(name);
    if (tenant) planned.push({ name, plan: await engine.plan(tenant) });
  }
  if (current > 0) options.progress(`${current} tenant${current === 1 ? '' : 's'} already up to date`);
  const refusals = planned.flatMap(({ name, plan }) => refusalsOf(plan).map((r) => `tenant ${name}: ${r}`));
  if (options.dryRun) for (const { plan } of planned) options.out(planText(plan));
  if (options.dryRun || refusals.length > 0) return refusals;
  for (const { name, plan } of planned) {
    // Planned again inside its transaction: a change since is refused there, that tenant unchanged.
    await engine.migrate((await tenants.get(name))!);
    await recordMigrated(tenants, name, engine.schemaFingerprint);
    options.progress(migratedLine(plan));
  }
  return [];
}
