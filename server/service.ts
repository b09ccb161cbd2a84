import { createHash } from 'node:crypto';
import { createEngine, type Engine } from '../engine/create-engine.ts';
import { SERVER_MIGRATIONS } from './migrations/index.ts';
import { loadSteps } from './load-steps.ts';
import type { MigrationStep } from '../engine/schema/index.ts';
import { noteDefinitions } from './definitions-seen.ts';
import { migrateIfChanged } from './migrate-tenants.ts';
import type { ResourceDefinition } from '../engine/define.ts';
import type { Hono } from 'hono';
import { swaggerUiAssets } from './api-docs.ts';
import { serviceFiles } from './files.ts';
import { createApp } from './app.ts';
import { createAuth, type Auth } from './auth/index.ts';
import { serviceRateLimit } from './caller.ts';
import type { Config } from './config.ts';
import { loadResources } from './load-resources.ts';
import { requestIds, silentLogger, type Logger } from './logging.ts';
import { openLimiters, type ServiceLimiters } from './rate-limit/service-limiters.ts';
import { openTenants, type TenantStore } from './tenants/index.ts';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher.ts';
import { webhookMetrics } from './webhooks/metrics.ts';

export interface Service {
  readonly config: Config;
  readonly engine: Engine;
  readonly tenants: TenantStore;
  readonly auth: Auth;
  readonly limiters: ServiceLimiters;
  readonly app: Hono;
  /** Delivers the change feed to webhooks; `mrs serve` starts it, close() stops it. */
  readonly webhooks: Dispatcher;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Definitions to serve; default: every file in resources/ (or RESOURCES_DIR). */
  resources?: readonly ResourceDefinition[];
  /** The deployment's migration steps; default: every file in migrations/ (or MIGRATIONS_DIR). */
  steps?: readonly MigrationStep[];
  /** The clock in epoch milliseconds (tests move it to expire cursors, cached key states and memory rate-limit windows). */
  now?: () => number;
  /** How long a process trusts what it read about an API key (default 2000; revocation takes at most this long). */
  keyStateTtlMs?: number;
  /** Request logs (default: none; `mrs serve` logs JSON lines on stdout). */
  logger?: Logger;
  /** Where unexpected errors go (default: stderr). */
  onUnexpectedError?: (e: unknown) => void;
  /** Whether opening a tenant migrates it (default true); `mrs migrate` plans every tenant before it changes any. */
  migrateOnOpen?: boolean;
  /** How often the webhook dispatcher looks for tenants' webhooks (default 5000 ms; tests shorten it). */
  webhookRefreshMs?: number;
}

/** Wires configuration, tenants, the engine and the HTTP app; opens nothing that listens. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const resources = options.resources ?? (await loadResources(config.resourcesDir));
  const steps = options.steps ?? (await loadSteps(config.migrationsDir));
  const onUnexpectedError = options.onUnexpectedError ?? ((e: unknown) => console.error(e));
  let auth: Auth | undefined;
  const ids = requestIds();
  const files = await serviceFiles(config);
  const engine = createEngine({
    responseHeaders: (req) => ids.headersFor(req),
    resources,
    resolveCaller: async (req) => {
      const caller = await auth!.resolve(req);
      ids.identify(req, { tenant: caller.clientDb, user: caller.user });
      return caller;
    },
    rateLimit: serviceRateLimit(() => limiters.keys),
    onUnexpectedError,
    cursorTtlS: config.cursorTtlS,
    cursorMaxLive: config.cursorMaxLive,
    eventsRetentionS: config.eventsRetentionS,
    eventsHeartbeatS: config.eventsHeartbeatS,
    requireIfMatch: config.requireIfMatch,
    idempotencyTtlS: config.idempotencyTtlS,
    sha256Hex: (text) => createHash('sha256').update(text).digest('hex'), // native: a keyed request's fingerprint
    migrations: { service: SERVER_MIGRATIONS },
    steps,
    apiDocs: { service: true, assets: swaggerUiAssets() },
    files: { ...files.files, links: { sign: (caller, path) => auth!.fileLinks.sign(caller, path) } },
    ...(options.now ? { now: options.now } : {}),
  });
  const logger = options.logger ?? silentLogger();
  // Each pool stops naming statements on its own; the process says so once.
  let warned = false;
  const onUnnamed = (why: string) => {
    if (!warned) logger.warn({ setting: 'PG_PREPARED_STATEMENTS' }, `named prepared statements off: ${why}`);
    warned = true;
  };
  const limiters = await openLimiters(config, onUnnamed, options.now);
  const tenants: TenantStore = openTenants(
    config,
    options.migrateOnOpen === false ? async () => {} : (t) => migrateIfChanged(engine, tenants, t, onUnexpectedError),
    onUnnamed,
  );
  // Before this service migrates anything: what orders its definitions against another release's.
  await noteDefinitions(tenants, engine.schemaFingerprint);
  auth = createAuth(config, tenants, {
    basePath: engine.basePath,
    now: options.now,
    keyStateTtlMs: options.keyStateTtlMs,
    identify: ids.identify,
  });
  const deliveries = webhookMetrics();
  const webhooks = createDispatcher({
    tenants,
    logger,
    metrics: deliveries,
    allowPrivate: config.webhookAllowPrivate,
    maxBackoffS: config.webhookMaxBackoffS,
    giveUpS: config.webhookGiveUpS,
    ...(options.webhookRefreshMs !== undefined ? { refreshMs: options.webhookRefreshMs } : {}),
  });
  const app = createApp({
    registerMetrics: (registry) => {
      deliveries.register(registry);
      files.register(registry);
    },
    engine,
    tenants,
    auth,
    limiters,
    onUnexpectedError,
    trustProxy: config.trustProxy,
    requireHttps: config.requireHttps,
    corsOrigins: config.corsOrigins,
    logger: options.logger,
    now: options.now,
    requestIds: ids,
  });
  return {
    config,
    engine,
    tenants,
    auth,
    limiters,
    app,
    webhooks,
    async close() {
      // Deliveries stop, then the event streams end: both would otherwise poll the tenants being closed.
      await webhooks.stop();
      await engine.close();
      await limiters.close();
      await tenants.close();
    },
  };
}

export { DEMO_ADMIN, DEMO_TENANT, ensureDemoTenant } from './demo.ts';
