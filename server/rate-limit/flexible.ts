import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimiter, WindowState } from '../../engine/rate-limit.ts';

/**
 * rate-limiter-flexible's consume() is exactly the interface's window: a key's window starts
 * with its first call when none is active, and the count is one atomic upsert in the store.
 */
export function fromFlexible(rl: RateLimiterAbstract, limit: number, windowS: number, close: () => Promise<void>): RateLimiter {
  const state = (res: RateLimiterRes, allowed: boolean): WindowState => ({
    allowed,
    limit,
    remaining: allowed ? Math.max(0, res.remainingPoints) : 0,
    resetS: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    windowS,
  });
  return {
    limit,
    windowS,
    async hit(key) {
      try {
        return state(await rl.consume(key), true);
      } catch (e) {
        if (e instanceof RateLimiterRes) return state(e, false);
        throw e;
      }
    },
    close,
  };
}
