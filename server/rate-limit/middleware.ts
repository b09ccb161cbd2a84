import type { MiddlewareHandler } from 'hono';
import { clientAddress } from './client-address.ts';
import { windowHeaders, type RateLimiter } from '../../engine/rate-limit.ts';

/** Limits a route per client address (SPEC 7: /authenticate, against key guessing); every call counts. */
export function limitByAddress(limiter: RateLimiter, trustProxy: boolean): MiddlewareHandler {
  return async function rateLimitByAddress(c, next) {
    const headers = windowHeaders(await limiter.hit(`addr:${clientAddress(c, trustProxy)}`));
    await next();
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}
