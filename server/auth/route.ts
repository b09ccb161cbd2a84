import { Hono } from 'hono';
import { EngineError } from '../../engine/errors.ts';
import { readJsonBody } from '../../engine/http/body.ts';
import type { TenantStore } from '../tenants/types.ts';
import { authenticate, parseCredentials } from './authenticate.ts';
import type { Tokens } from './tokens.ts';

/**
 * `POST {base}/authenticate`. Errors are thrown as EngineErrors and rendered by the app's one
 * error handler. A rate limiter per client address belongs in front of this route (SPEC 7).
 */
export function authenticateRoute(
  basePath: string,
  deps: { tenants: TenantStore; tokens: Tokens },
  identify: (req: Request, who: { tenant: string; user: string }) => void = () => {},
): Hono {
  const app = new Hono();
  const path = `${basePath}/authenticate`;
  app.post(path, async function issueToken(c) {
    const body = await readJsonBody(c.req.raw);
    if ('error' in body) throw body.error;
    const credentials = parseCredentials(body.value);
    const answer = await authenticate(deps, credentials);
    // Only once the key matched: a refused attempt names nobody (its username is a claim, not a fact).
    identify(c.req.raw, { tenant: credentials.client_db, user: credentials.username });
    return c.json(answer, 200, { 'cache-control': 'no-store' });
  });
  app.all(path, () => {
    throw new EngineError('method-not-allowed', 'Only POST is allowed on /authenticate.', [], { allow: 'POST' });
  });
  return app;
}
