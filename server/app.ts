import { Hono } from 'hono';
import type { Engine } from '../engine/create-engine.ts';
import { EngineError, problemResponse } from '../engine/errors.ts';
import type { Auth } from './auth/index.ts';
import type { TenantStore } from './tenants/types.ts';

export interface AppDeps {
  readonly engine: Engine;
  readonly tenants: TenantStore;
  readonly auth: Auth;
  readonly onUnexpectedError?: (e: unknown) => void;
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
  app.route('/', deps.auth.route);
  app.route('/', deps.engine.app);
  app.notFound((c) => problemResponse(new EngineError('not-found', `Nothing is served at ${new URL(c.req.url).pathname}.`)));
  app.onError((e) => problemResponse(e, deps.onUnexpectedError));
  return app;
}
