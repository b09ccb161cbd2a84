import type { Caller } from '../engine/http/caller.ts';
import type { AuthenticatedCaller } from './auth/index.ts';
import type { RateLimiter } from '../engine/rate-limit.ts';

/**
 * The service's per-key rate limit (SPEC section 7), as createEngine's `rateLimit` option: after
 * the token check (401 whatever the path), each API key counts against its own window; every
 * answer after that carries the key's window in its headers. The limiter is the one open now
 * (none: no limit).
 */
export function serviceRateLimit(limiter: () => RateLimiter | undefined) {
  return {
    limiter,
    key: (caller: Caller) => `${(caller as AuthenticatedCaller).clientDb}/${(caller as AuthenticatedCaller).keyId}`,
  };
}
