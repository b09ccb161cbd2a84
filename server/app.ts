import { Hono } from 'hono';
import type { Engine } from '../engine/create-engine.ts';
import { EngineError, problemResponse } from '../engine/errors.ts';
import type { Auth } from './auth/index.ts';
import { limitByAddress } from './rate-limit/middleware.ts';
import type { ServiceLimiters } from './rate-limit/service-limiters.ts';
import type { TenantStore } from './tenants/types.ts';

export interface AppDeps {
  readonly engine: Engine;
  readonly tenants: TenantStore;
  readonly auth: Auth;
  readonly limiters: ServiceLimiters;
  readonly onUnexpectedError?: (e: unknown) => void;
  /** Whether X-Forwarded-For names the client (TRUST_PROXY). */
  readonly trustProxy?: boolean;
}

/** The service's HTTP surface; never listens (the Node entry does). */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await deps.tenants.ping();
      return c.json({ status: 'ready' });
    } catch {
      return problemResponse(new EngineError('unavailable', 'The database does not answer.'));
    }
  });
  if (deps.limiters.auth) app.use(`${deps.engine.basePath}/authenticate`, limitByAddress(deps.limiters.auth, deps.trustProxy ?? false));
  app.route('/', deps.auth.route);
  app.route('/', deps.engine.app);
  app.notFound((c) => problemResponse(new EngineError('not-found', `Nothing is served at ${new URL(c.req.url).pathname}.`)));
  app.onError((e) => problemResponse(e, deps.onUnexpectedError));
  return app;
}
