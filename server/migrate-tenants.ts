import type { Engine } from '../engine/create-engine.ts';
import { EngineError } from '../engine/errors.ts';
import type { TenantDb } from '../engine/dialects/types.ts';
import { DEFINITIONS_RETRY_AFTER_S, refusalsOf, type TenantPlan } from '../engine/schema/index.ts';
import { isAhead } from './definitions-seen.ts';
import { migratedLine, planText } from './migrate-plan-text.ts';
import type { Service } from './service.ts';
import { usingLease, type TenantStore } from './tenants/index.ts';

export interface MigrateTenantsOptions {
  /** Print the plans and change nothing. */
  readonly dryRun: boolean;
  /** Plan every tenant, also those that recorded the current fingerprint. */
  readonly all?: boolean;
  /** How many tenants are planned, and then migrated, at once (default 1). */
  readonly concurrency?: number;
  /**
   * Servers starting together: take the tenants in an order of this process's own, and pass one
   * another process recorded migrated meanwhile, so each takes different tenants, not turns on each.
   */
  readonly spread?: boolean;
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
  /** Tenants that recorded the current fingerprint, or a newer release's: one row read each, nothing planned. */
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
  // A newer release's tenant is served as it is: where these definitions no longer fit, 503.
  if (await isAhead(tenants, engine.schemaFingerprint, recorded)) return void failed.delete(t.key);
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
  const changed = options.all ? names : names.filter((name) => recorded.get(name) !== engine.schemaFingerprint);
  const ahead = new Set<string>();
  for (const name of changed) if (await isAhead(tenants, engine.schemaFingerprint, recorded.get(name))) ahead.add(name);
  const due = changed.filter((name) => !ahead.has(name));
  if (options.spread) shuffle(due);
  const unchanged = names.length - due.length;
  if (unchanged > ahead.size)
    options.progress(`${unchanged - ahead.size} tenant${unchanged - ahead.size === 1 ? '' : 's'} already up to date`);
  if (ahead.size > 0) {
    const some = [...ahead].slice(0, 5).join(', ') + (ahead.size > 5 ? ', ...' : '');
    options.progress(
      `${ahead.size} tenant${ahead.size === 1 ? '' : 's'} already at newer definitions than these, left as they are: ${some}`,
    );
  }
  const plans = new Map<string, TenantPlan>();
  await eachLimited(due, limit, async (name) => {
    await usingLease(tenants, name, async (tenant) => void (tenant && plans.set(name, await engine.plan(tenant))));
    options.step?.('planning', plans.size, due.length);
  });
  // A refusal may be a plan read beside another process's migration: read again under its lock.
  await eachLimited(
    [...plans].filter(([, plan]) => refusalsOf(plan).length > 0).map(([name]) => name),
    limit,
    async (name) => {
      await usingLease(tenants, name, async (tenant) => void plans.set(name, await engine.plan(tenant!, { locked: true })));
    },
  );
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
  const doneElsewhere = options.spread ? recentFingerprints(tenants) : async () => new Map<string, string>();
  try {
    await eachLimited(planned, limit, async ({ name, plan }) => {
      if ((await doneElsewhere()).get(name) === engine.schemaFingerprint)
        return void options.step?.('migrating', ++migrated, planned.length);
      // Planned again inside its transaction: a change since is refused there, that tenant unchanged.
      await usingLease(tenants, name, (tenant) => engine.migrate(tenant!)); // a migration may outlast TENANT_IDLE_S
      await recordMigrated(tenants, name, engine.schemaFingerprint);
      options.progress(migratedLine(plan));
      options.step?.('migrating', ++migrated, planned.length);
    });
  } finally {
    summary(migrated);
  }
  return [];
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

/** The recorded fingerprints, read again at most once a second however many tenants ask. */
function recentFingerprints(tenants: TenantStore): () => Promise<Map<string, string>> {
  let read: { at: number; map: Promise<Map<string, string>> } | undefined;
  return () => {
    if (!read || Date.now() - read.at > 1000) read = { at: Date.now(), map: tenants.fingerprints() };
    return read.map;
  };
}
