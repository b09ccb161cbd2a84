import type { ResolveCaller } from '../engine/http/caller.ts';
import type { AuthenticatedCaller } from './auth/index.ts';
import { limitCaller, type RateLimiter } from '../engine/rate-limit.ts';
import { batchCost } from '../engine/http/batch-route.ts';

/**
 * The caller of every /maintenance request, in SPEC section 1's order: the token check first
 * (401 whatever the path), then the per-key rate limit (429, SPEC section 7); every answer
 * after that carries the key's window in its headers. A batch (`batchPath`) counts each of its
 * operations (SPEC 10).
 */
export function serviceCaller(
  authenticateToken: (req: Request) => Promise<AuthenticatedCaller>,
  limiter: () => RateLimiter | undefined,
  batchPath: string,
): ResolveCaller {
  return async function resolveCaller(req) {
    const caller = await authenticateToken(req);
    const keys = limiter();
    if (!keys) return caller;
    return limitCaller(keys, `${caller.clientDb}/${caller.keyId}`, caller, await batchCost(req, batchPath));
  };
}
