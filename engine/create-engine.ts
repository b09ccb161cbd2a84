import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import type { ResourceDefinition } from './define.ts';
import type { TenantDb } from './dialects/types.ts';
import { EngineError } from './errors.ts';
import type { FilesOptions } from './files/options.ts';
import { problemResponse } from './http/problem.ts';
import { allowAll, type Caller, type ResolveCaller } from './http/caller.ts';
import { createMaintenanceHandler } from './http/handle.ts';
import { servedSegments } from './http/route-table.ts';
import { DEFAULT_TITLE, docsRoutes, openApiDocument, type DocsAssets, type OpenApiOptions } from './openapi/index.ts';
import { OpenStreams, type EventStreams } from './events/open-streams.ts';
import { limitCaller, type ChargeCaller, type RateLimiter } from './rate-limit.ts';
import { targetOf } from './http/request-target.ts';
import { createRegistry, type Registry } from './registry.ts';
import {
  checkMigrationOwners,
  checkSteps,
  migrateTenant,
  planTenant,
  planTenantLocked,
  schemaFingerprint,
  type MigrationOwners,
  type MigrationStep,
  type TenantPlan,
} from './schema/index.ts';
import { tenantDb } from './tenant-db.ts';

export const DEFAULT_BASE_PATH = '/v4_server/external/v1';

/**
 * Runs after the caller is resolved and before the request is routed: the place for a rate
 * limiter or any other per-caller gate. Throw an EngineError to refuse (e.g.
 * `rate-limited` with `Retry-After`); return a caller to serve the request as that one
 * (e.g. carrying rate-limit headers); return nothing to go on unchanged.
 */
export type BeforeRequest = (req: Request, caller: Caller) => Promise<Caller | void>;

interface CommonOptions {
  readonly resources: readonly ResourceDefinition[];
  /** Where the collections are served: `{basePath}/{group}/...` (default `/v4_server/external/v1`). */
  readonly basePath?: string;
  /** Cursor lifetime without use, in seconds (default 3900: outlives a client that waits out an hourly call budget). */
  readonly cursorTtlS?: number;
  /**
   * Live cursors a tenant keeps at most (default 100000): past it, each sweep removes those
   * nearest their expiry, so a flood of searches within one lifetime cannot fill the database.
   */
  readonly cursorMaxLive?: number;
  /** How long the change feed (`{basePath}/events`) keeps events, in seconds (default 604800: a week). */
  readonly eventsRetentionS?: number;
  /**
   * An event stream (`{basePath}/events` with `Accept: text/event-stream`) sends a keep-alive
   * comment when it sent nothing for this long, in seconds (default 15).
   */
  readonly eventsHeartbeatS?: number;
  /** PATCH, PUT and DELETE without an If-Match header answer 428 (default false). */
  readonly requireIfMatch?: boolean;
  /** How long the answer to a request with an Idempotency-Key is kept, in seconds (default 86400). */
  readonly idempotencyTtlS?: number;
  /**
   * SHA-256 of a string's UTF-8 bytes as lowercase hex, for Idempotency-Key fingerprints: the
   * engine's own (portable JavaScript) by default; a host with a native one may pass it, e.g. on
   * Node and Bun `(text) => createHash('sha256').update(text).digest('hex')` from `node:crypto`.
   */
  readonly sha256Hex?: (text: string) => string;
  /** The clock, in epoch milliseconds (tests move it). */
  readonly now?: () => number;
  /**
   * The host's own Kysely migrations, by owner (e.g. `{ service: {...} }`), run in every database
   * after the engine's, each owner's recorded in its table `mrs_migration_<owner>`. A name that
   * two owners share, or the owner `engine`, is refused when the engine is made.
   */
  readonly migrations?: MigrationOwners;
  /**
   * The deployment's own data steps, in order (the service's `migrations/` folder): each runs once
   * per tenant, in its migration's transaction, after the definitions' new columns and before
   * their rules are checked on the rows.
   */
  readonly steps?: readonly MigrationStep[];
  /** Called with errors that are not EngineErrors (answered as a bare 500). */
  readonly onUnexpectedError?: (e: unknown, req: Request) => void;
  /**
   * Rate limiting per caller, after the caller is resolved: a limiter (its store is the host's
   * choice, e.g. server/rate-limit's createLimiter: memory or a database) and the key a caller
   * counts against (default its user, or `anonymous`). Answers carry the window's headers;
   * over the limit, 429 with Retry-After and nothing done. `limiter` may be a function giving the
   * limiter of the moment (undefined: no limit), for a host that opens or replaces it later.
   */
  readonly rateLimit?: {
    readonly limiter: RateLimiter | (() => RateLimiter | undefined);
    readonly key?: (caller: Caller, req: Request) => string;
  };
  /** See BeforeRequest; runs after rateLimit. */
  readonly beforeRequest?: BeforeRequest;
  /**
   * Headers for every answer the engine gives a request, errors included (e.g. a request id),
   * set when the Response is made: cheaper than adding them to it afterwards.
   */
  readonly responseHeaders?: (req: Request) => Readonly<Record<string, string>>;
  /**
   * Publish the API: `{basePath}/openapi.json` (the OpenAPI 3.1 document of the definitions, see
   * `openApi()`) and, given `assets`, the interactive docs page at `{basePath}/docs`. Both
   * without authentication. `assets`: `swaggerUiAssets()` from `maintenance-records/docs` on
   * Node and Bun (it reads files, so it is not part of the engine).
   */
  readonly apiDocs?: ApiDocsOptions;
  /**
   * Attached files (SPEC 13), for collections whose definition declares `files`: the store of
   * their bytes and the pieces that read uploads (`nodeFiles(diskFileStore(dir))` from
   * adapters/files on Node and Bun). Without it, file paths answer 404.
   */
  readonly files?: FilesOptions;
}

export interface ApiDocsOptions extends Omit<OpenApiOptions, 'basePath'> {
  readonly assets?: DocsAssets;
}

/** Many tenants: the host resolves each request's tenant database (the service's form). */
export interface TenantsEngineOptions extends CommonOptions {
  readonly db?: undefined;
  /** Resolves each request's caller (tenant database, user, permissions); throw an EngineError to refuse. */
  readonly resolveCaller: ResolveCaller;
}

/** The caller a single-database engine's resolver returns; the tenant defaults to that database. */
export type DbCaller = Omit<Caller, 'tenant'> & { readonly tenant?: TenantDb | undefined };

/** One database handed over by the host (embedding). */
export interface DbEngineOptions extends CommonOptions {
  /** A Kysely instance on SQLite or PostgreSQL. */
  readonly db: Kysely<any>;
  /** PostgreSQL: keep the tables in this schema (created by `migrate()`); default the current schema. */
  readonly schema?: string;
  /**
   * Omitted: auth off, every request runs on `db` with every permission. Otherwise the
   * host's own check (its session, its users): throw an EngineError (`unauthorized`) to refuse.
   */
  readonly resolveCaller?: (req: Request) => Promise<DbCaller>;
  /** Whether `close()` also destroys `db` (default true: the engine was handed the connection). */
  readonly closeDb?: boolean;
}

export type EngineOptions = TenantsEngineOptions | DbEngineOptions;

export interface Engine {
  readonly registry: Registry;
  readonly basePath: string;
  /** The collections as a Hono app: `host.route('/', engine.app)`, or call `app.fetch`. */
  readonly app: Hono;
  /** The web-standard handler: any fetch host (Bun.serve, Deno.serve, @hono/node-server). */
  readonly fetch: (req: Request) => Promise<Response>;
  /** The OpenAPI 3.1 document of what the engine serves (the `apiDocs` title and description, if given). */
  openApi(): Record<string, unknown>;
  /**
   * Creates or updates the engine's tables and every resource table in a tenant database; refuses
   * with MigrationRefused, changing nothing, where data would be lost or hidden (SPEC 12).
   */
  migrate(tenant: TenantDb): Promise<void>;
  /**
   * What `migrate` would do to a tenant's resource tables, and what it would refuse; changes
   * nothing. `locked`: read under the migration lock, waiting for one another process runs.
   */
  plan(tenant: TenantDb, options?: { locked?: boolean }): Promise<TenantPlan>;
  /** A hash of the tables and engine tables `migrate` makes: a host that recorded it for a tenant need not migrate it again. */
  readonly schemaFingerprint: string;
  /** The event streams open now; `endAll()` ends them (a host shutting down, before it waits for its connections). */
  readonly streams: EventStreams;
  /**
   * Stops serving (later requests get 503), ends the open event streams and waits for the
   * requests in flight. A
   * single-database engine then destroys its `db` (unless `closeDb: false`); a multi-tenant
   * engine holds no connection, its host closes the tenants.
   */
  close(): Promise<void>;
}

export interface DbEngine extends Engine {
  /** The handed-over database as the engine sees it. */
  readonly tenant: TenantDb;
  /** Migrates the handed-over database (or the one given). */
  migrate(tenant?: TenantDb): Promise<void>;
}

export function createEngine(options: DbEngineOptions): DbEngine;
export function createEngine(options: TenantsEngineOptions): Engine;
export function createEngine(options: EngineOptions): Engine | DbEngine;
export function createEngine(options: EngineOptions): Engine | DbEngine {
  const registry = createRegistry(options.resources);
  checkMigrationOwners(options.migrations ?? {});
  checkSteps(options.steps ?? []);
  const basePath = (options.basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, '');
  const cursors = { ttlMs: (options.cursorTtlS ?? 3900) * 1000, now: options.now ?? Date.now, maxLive: options.cursorMaxLive ?? 100_000 };
  const single = options.db === undefined ? undefined : singleDb(options);
  const rateLimit = rateLimitOf(options, `${basePath}/batch`);
  const resolveCaller = withGates(single?.resolveCaller ?? (options as TenantsEngineOptions).resolveCaller, [
    ...(rateLimit ? [rateLimit.gate] : []),
    ...(options.beforeRequest ? [options.beforeRequest] : []),
  ]);
  const feed = { retentionMs: (options.eventsRetentionS ?? 604_800) * 1000, now: cursors.now };
  const streams = new OpenStreams();
  const streamSettings = { heartbeatMs: (options.eventsHeartbeatS ?? 15) * 1000, open: streams, onError: options.onUnexpectedError };
  const handle = createMaintenanceHandler({
    registry,
    basePath,
    resolveCaller,
    cursors,
    requireIfMatch: options.requireIfMatch === true,
    idempotency: { ttlMs: (options.idempotencyTtlS ?? 86400) * 1000, now: cursors.now, sha256Hex: options.sha256Hex },
    feed,
    streams: streamSettings,
    files: options.files,
    charge: rateLimit?.charge,
  });
  // Requests being answered, and close()s waiting for them to be done.
  let inFlight = 0;
  const drained: (() => void)[] = [];
  let closed = false;
  const serve = async (req: Request): Promise<Response> => {
    const headers = options.responseHeaders?.(req);
    if (closed) return problemResponse(new EngineError('unavailable', 'The engine is closed.'), undefined, headers);
    inFlight++;
    try {
      return await handle(req, headers);
    } catch (e) {
      return problemResponse(e, (err) => options.onUnexpectedError?.(err, req), headers);
    } finally {
      if (--inFlight === 0) for (const done of drained.splice(0)) done();
    }
  };
  const { assets, ...documentOptions } = options.apiDocs ?? {};
  const openApi = () => openApiDocument(registry, { ...documentOptions, basePath });
  const app = new Hono();
  if (options.apiDocs) {
    const document = () => JSON.stringify(openApi());
    app.route('/', docsRoutes({ basePath, document, assets, title: documentOptions.title ?? DEFAULT_TITLE }));
  }
  for (const segment of servedSegments(registry)) {
    app.all(`${basePath}/${segment}`, (c) => serve(c.req.raw));
    app.all(`${basePath}/${segment}/*`, (c) => serve(c.req.raw));
  }
  app.all(`${basePath}/events`, (c) => serve(c.req.raw));
  app.all(`${basePath}/batch`, (c) => serve(c.req.raw));
  app.notFound((c) => problemResponse(new EngineError('not-found', `Nothing is served at ${new URL(c.req.url).pathname}.`)));
  app.onError((e, c) => problemResponse(e, (err) => options.onUnexpectedError?.(err, c.req.raw)));
  const migrate = (tenant: TenantDb) => migrateTenant(tenant, registry, options.migrations, options.steps);
  const engine: Engine = {
    registry,
    basePath,
    app,
    fetch: async (req) => app.fetch(req),
    openApi,
    migrate,
    plan: (tenant, how) => (how?.locked ? planTenantLocked : planTenant)(tenant, registry, options.steps),
    schemaFingerprint: schemaFingerprint(registry, options.migrations, options.steps),
    streams,
    async close() {
      closed = true;
      streams.endAll();
      if (inFlight > 0) await new Promise<void>((done) => drained.push(done));
      await single?.close();
    },
  };
  if (!single) return engine;
  return { ...engine, tenant: single.tenant, migrate: (tenant?: TenantDb) => (tenant ? migrate(tenant) : single.migrate(migrate)) };
}

/** The pieces of the single-database form: its tenant, its default caller, its migrate and close. */
function singleDb(options: DbEngineOptions) {
  const tenant = tenantDb(options.db, options.schema === undefined ? {} : { schema: options.schema });
  const custom = options.resolveCaller;
  const resolveCaller: ResolveCaller = custom
    ? async (req) => {
        const caller = await custom(req);
        if (caller.tenant !== undefined) return caller as Caller;
        // Inherit rather than spread: a caller may be a class instance whose `can` is on its prototype.
        return Object.assign(Object.create(caller) as Caller, { tenant });
      }
    : async () => ({ tenant, can: allowAll() });
  return {
    tenant,
    resolveCaller,
    async migrate(run: (t: TenantDb) => Promise<void>) {
      if (tenant.schema !== undefined) await options.db.schema.createSchema(tenant.schema).ifNotExists().execute();
      await run(tenant);
    },
    async close() {
      if (options.closeDb !== false) await options.db.destroy();
    },
  };
}

/**
 * The rate limit, between resolving the caller and the host's hook: a gate that counts each
 * request as one call, but a batch, whose route charges its operations once it has read its body
 * (SPEC 10).
 */
function rateLimitOf(options: CommonOptions, batchPath: string): { gate: BeforeRequest; charge: ChargeCaller } | undefined {
  if (!options.rateLimit) return undefined;
  const { limiter, key = (caller: Caller) => caller.user ?? 'anonymous' } = options.rateLimit;
  const limiterOf = typeof limiter === 'function' ? limiter : () => limiter;
  const charge: ChargeCaller = (req, caller, cost) => {
    const now = limiterOf();
    return now ? limitCaller(now, key(caller, req), caller, cost) : caller;
  };
  return { gate: async (req, caller) => (targetOf(req).pathname === batchPath ? caller : charge(req, caller, 1)), charge };
}

function withGates(resolve: ResolveCaller, gates: readonly BeforeRequest[]): ResolveCaller {
  if (gates.length === 0) return resolve;
  return async (req) => {
    const resolved = await resolve(req);
    let caller = resolved;
    try {
      for (const gate of gates) caller = (await gate(req, caller)) ?? caller;
    } catch (e) {
      resolved.release?.(); // refused by a gate: no answer will release it
      throw e;
    }
    return caller;
  };
}
