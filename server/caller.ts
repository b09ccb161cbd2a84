import type { ResolveCaller } from '../engine/http/caller.ts';
import type { AuthenticatedCaller } from './auth/index.ts';

/**
 * The caller of every /maintenance request, in SPEC section 1's order: the token check first
 * (401 whatever the path), then the per-key rate limit (429, SPEC section 7, a later issue:
 * it slots in where marked, counting against `caller.keyId`).
 */
export function serviceCaller(authenticateToken: (req: Request) => Promise<AuthenticatedCaller>): ResolveCaller {
  return async function resolveCaller(req) {
    const caller = await authenticateToken(req);
    // Rate limit here: throw the 429 (with Retry-After) before anything else runs.
    return caller;
  };
}
