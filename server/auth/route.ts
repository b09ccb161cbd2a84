import { Hono } from 'hono';
import { EngineError } from '../../engine/errors.ts';
import { readJsonBody } from '../../engine/http/body.ts';
import { retryTransientOnce } from '../../engine/transient.ts';
import { authenticate, parseCredentials, type TokenDeps } from './authenticate.ts';
import { parseRefreshBody, refresh } from './refresh.ts';

/** Where a refresh token is traded, under the base path. */
export const REFRESH_PATH = '/tokens/refresh';

/**
 * `POST {base}/authenticate` and `POST {base}/tokens/refresh`. Errors are thrown as EngineErrors
 * and rendered by the app's one error handler. A rate limiter per client address belongs in front
 * of both (SPEC 7).
 */
export function authenticateRoute(
  basePath: string,
  deps: TokenDeps,
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
  const refreshPath = `${basePath}${REFRESH_PATH}`;
  app.post(refreshPath, async function refreshToken(c) {
    const body = await readJsonBody(c.req.raw);
    if ('error' in body) throw body.error;
    const token = parseRefreshBody(body.value);
    const { tenant, user, ...answer } = await retryTransientOnce(() => refresh(deps, token));
    identify(c.req.raw, { tenant, user });
    return c.json(answer, 200, { 'cache-control': 'no-store' });
  });
  app.all(refreshPath, () => {
    throw new EngineError('method-not-allowed', `Only POST is allowed on ${REFRESH_PATH}.`, [], { allow: 'POST' });
  });
  return app;
}
