import { Hono } from 'hono';
import type { Migration } from 'kysely';
import type { ResourceDefinition } from './define.ts';
import type { TenantDb } from './dialects/types.ts';
import { EngineError, problemResponse } from './errors.ts';
import type { ResolveCaller } from './http/caller.ts';
import { createMaintenanceHandler } from './http/handle.ts';
import { createRegistry, type Registry } from './registry.ts';
import { migrateTenant } from './schema/index.ts';

export const DEFAULT_BASE_PATH = '/v4_server/external/v1';

export interface EngineOptions {
  readonly resources: readonly ResourceDefinition[];
  /** Where the collections are served: `{basePath}/maintenance/...`. */
  readonly basePath?: string;
  /** Resolves each request's caller (tenant database, user, permissions); throw an EngineError to refuse. */
  readonly resolveCaller: ResolveCaller;
  /** Cursor lifetime without use, in seconds (default 900). */
  readonly cursorTtlS?: number;
  /** The clock, in epoch milliseconds (tests move it). */
  readonly now?: () => number;
  /** Extra Kysely migrations run in every tenant database after the engine's own. */
  readonly migrations?: Record<string, Migration>;
  /** Called with errors that are not EngineErrors (answered as a bare 500). */
  readonly onUnexpectedError?: (e: unknown, req: Request) => void;
}

export interface Engine {
  readonly registry: Registry;
  readonly basePath: string;
  /** The collections as a Hono app; mount it or call `app.fetch`. */
  readonly app: Hono;
  readonly fetch: (req: Request) => Promise<Response>;
  /** Creates or updates the engine's tables and every resource table in a tenant database. */
  migrate(tenant: TenantDb): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const registry = createRegistry(options.resources);
  const basePath = (options.basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, '');
  const cursors = { ttlMs: (options.cursorTtlS ?? 900) * 1000, now: options.now ?? Date.now };
  const handle = createMaintenanceHandler({ registry, basePath, resolveCaller: options.resolveCaller, cursors });
  const app = new Hono();
  const serve = async (req: Request) => {
    try {
      return await handle(req);
    } catch (e) {
      return problemResponse(e, (err) => options.onUnexpectedError?.(err, req));
    }
  };
  app.all(`${basePath}/maintenance`, (c) => serve(c.req.raw));
  app.all(`${basePath}/maintenance/*`, (c) => serve(c.req.raw));
  app.notFound((c) => problemResponse(new EngineError('not-found', `Nothing is served at ${new URL(c.req.url).pathname}.`)));
  app.onError((e, c) => problemResponse(e, (err) => options.onUnexpectedError?.(err, c.req.raw)));
  return {
    registry,
    basePath,
    app,
    fetch: async (req) => app.fetch(req),
    migrate: (tenant) => migrateTenant(tenant, registry, options.migrations),
  };
}
