import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { Engine } from '../engine/create-engine.ts';
import { EngineError } from '../engine/errors.ts';
import { problemResponse } from '../engine/http/problem.ts';
import type { Auth } from './auth/index.ts';
import type { CorsOrigins } from './config.ts';
import { cors, pathMethods } from './cors.ts';
import { httpsPolicy } from './https-policy.ts';
import { requestLog, silentLogger, type Logger, type RequestIds } from './logging.ts';
import { createMetrics } from './metrics.ts';
import { limitByAddress } from './rate-limit/middleware.ts';
import { REFRESH_PATH } from './auth/route.ts';
import type { ServiceLimiters } from './rate-limit/service-limiters.ts';
import { requestRouteLabeler, routeLabeler } from './route-label.ts';
import type { TenantStore } from './tenants/types.ts';

export interface AppDeps {
  readonly engine: Engine;
  readonly tenants: TenantStore;
  readonly auth: Auth;
  readonly limiters: ServiceLimiters;
  readonly onUnexpectedError?: (e: unknown) => void;
  /** Whether X-Forwarded-For names the client (TRUST_PROXY). */
  readonly trustProxy?: boolean;
  /** Request logs, one JSON line each (default: none). */
  readonly logger?: Logger;
  /** REQUIRE_HTTPS: refuse requests that did not arrive over TLS or from a trusted proxy saying https. */
  readonly requireHttps?: boolean;
  /** The cursors' clock for /metrics, in epoch milliseconds. */
  readonly now?: () => number;
  /** Request ids, shared with the engine (which puts them in its own answers). */
  readonly requestIds?: RequestIds;
  /** CORS_ORIGINS: the browser origins that may call the API (unset: no CORS headers at all). */
  readonly corsOrigins?: CorsOrigins | undefined;
  /** Adds metrics kept outside the app (webhook deliveries) to /metrics. */
  readonly registerMetrics?: (registry: Registry) => void;
}

/** Health, readiness and metrics come from inside the network (load balancers, Prometheus): any transport. */
const OPERATIONAL = new Set(['/healthz', '/readyz', '/metrics']);

/** The service's HTTP surface; never listens (the Node entry does). */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const routeOf = requestRouteLabeler(routeLabeler(deps.engine.registry, deps.engine.basePath));
  const metrics = createMetrics({
    tenants: deps.tenants,
    streamsOpen: () => deps.engine.streams.open,
    ...(deps.now ? { now: deps.now } : {}),
  });
  deps.registerMetrics?.(metrics.registry);
  app.use(requestLog(deps.logger ?? silentLogger(), routeOf, deps.requestIds, metrics.record));
  // Before the HTTPS policy, authentication and rate limits: a browser must see why it was refused.
  if (deps.corsOrigins) {
    const { basePath, registry } = deps.engine;
    app.use(cors({ origins: deps.corsOrigins, basePath, methodsOf: pathMethods(registry, basePath) }));
  }
  // Without REQUIRE_HTTPS every transport is served: no middleware at all.
  if (deps.requireHttps) app.use(httpsPolicy({ trustProxy: deps.trustProxy ?? false, exempt: (p) => OPERATIONAL.has(p) }));
  app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'content-type': metrics.contentType }));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await deps.tenants.ping();
      return c.json({ status: 'ready' });
    } catch {
      return problemResponse(new EngineError('unavailable', 'The database does not answer.'));
    }
  });
  if (deps.limiters.auth) {
    const byAddress = limitByAddress(deps.limiters.auth, deps.trustProxy ?? false);
    app.use(`${deps.engine.basePath}/authenticate`, byAddress);
    app.use(`${deps.engine.basePath}${REFRESH_PATH}`, byAddress);
  }
  app.route('/', deps.auth.route);
  app.route('/', deps.engine.app);
  app.notFound((c) => problemResponse(new EngineError('not-found', `Nothing is served at ${new URL(c.req.url).pathname}.`)));
  app.onError((e) => problemResponse(e, deps.onUnexpectedError));
  return app;
}
