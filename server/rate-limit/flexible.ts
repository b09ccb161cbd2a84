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
 * The hits of one key go to the store together, as one consume of that many points: one upsert
 * (a round trip and a write) instead of one a call. A key has one consume in flight at most: the
 * hits that arrive meanwhile wait for it to end and go together in the next one, so under load a
 * key costs one upsert a round trip whatever the rate of calls, not one a turn of the event loop
 * (each query is socket writes and reads that cost the server more than the rest of a small
 * request: BENCHMARKS.md). Each hit then takes its own place in the window, counted from the
 * total the upsert returns, so with N calls left exactly N of them are allowed, across processes
 * too (each process's upsert is atomic, and a refused hit counts as it did alone). A hit waits
 * at most for the consume in flight and its own.
 */
export function fromFlexible(rl: RateLimiterAbstract, limit: number, windowS: number, close: () => Promise<void>): RateLimiter {
  const pending = new Map<string, Waiting[]>();
  const inFlight = new Set<string>();
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

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  function flush(): void {
    scheduled = false;
    for (const [key, hits] of [...pending]) {
      if (inFlight.has(key)) continue; // they go when it ends
      pending.delete(key);
      inFlight.add(key);
      void consume(key, hits).finally(() => {
        inFlight.delete(key);
        if (pending.has(key)) schedule();
      });
    }
  }

  return {
    limit,
    windowS,
    hit(key, cost = 1) {
      return new Promise<WindowState>((resolve, reject) => {
        let hits = pending.get(key);
        if (!hits) pending.set(key, (hits = []));
        hits.push({ cost, resolve, reject });
        if (!inFlight.has(key)) schedule();
      });
    },
    close,
  };
}
