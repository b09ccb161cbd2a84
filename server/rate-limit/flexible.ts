import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimiter, WindowState } from '../../engine/rate-limit.ts';

interface Waiting {
  readonly cost: number;
  resolve(state: WindowState): void;
  reject(e: unknown): void;
}

/**
 * rate-limiter-flexible's consume() is exactly the interface's window: a key's window starts
 * with its first call when none is active, and the count is one atomic upsert in the store.
 *
 * The hits of one key that arrive in the same turn of the event loop go to the store together,
 * as one consume of that many points: one upsert (a round trip and a write) instead of one a
 * call. Each hit then takes its own place in the window, counted from the total the upsert
 * returns, so with N calls left exactly N of them are allowed, across processes too (each
 * process's upsert is atomic, and a refused hit counts as it did alone). A hit waits at most
 * one turn for its batch.
 */
export function fromFlexible(rl: RateLimiterAbstract, limit: number, windowS: number, close: () => Promise<void>): RateLimiter {
  const pending = new Map<string, Waiting[]>();
  let scheduled = false;

  async function consume(key: string, hits: Waiting[]): Promise<void> {
    let res: RateLimiterRes;
    const points = hits.reduce((sum, h) => sum + h.cost, 0);
    try {
      res = await rl.consume(key, points);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) {
        for (const h of hits) h.reject(e);
        return;
      }
      res = e; // over the limit: the count went up all the same
    }
    let count = res.consumedPoints - points;
    const resetS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    hits.forEach((h) => {
      count += h.cost;
      const allowed = count <= limit;
      h.resolve({ allowed, limit, remaining: allowed ? limit - count : 0, resetS, windowS });
    });
  }

  function flush(): void {
    scheduled = false;
    const batch = [...pending];
    pending.clear();
    for (const [key, hits] of batch) void consume(key, hits);
  }

  return {
    limit,
    windowS,
    hit(key, cost = 1) {
      return new Promise<WindowState>((resolve, reject) => {
        let hits = pending.get(key);
        if (!hits) pending.set(key, (hits = []));
        hits.push({ cost, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    close,
  };
}
