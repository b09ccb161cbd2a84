import type { MiddlewareHandler } from 'hono';
import { EngineError } from '../../engine/errors.ts';
import { clientAddress } from './client-address.ts';
import { rateLimitHeaders, type RateLimiter } from './window.ts';

/** Limits a route per client address (SPEC 7: /authenticate, against key guessing); every call counts. */
export function limitByAddress(limiter: RateLimiter, trustProxy: boolean): MiddlewareHandler {
  return async function rateLimitByAddress(c, next) {
    const state = await limiter.hit(`addr:${clientAddress(c, trustProxy)}`);
    const headers = rateLimitHeaders(state);
    if (!state.allowed) throw tooManyRequests(headers);
    await next();
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}

export const tooManyRequests = (headers: Record<string, string>) =>
  new EngineError('rate-limited', `Rate limit exceeded: try again in ${headers['retry-after']} s.`, [], headers);
