import type { RateLimiter, WindowState } from '../../engine/rate-limit.ts';

/**
 * Fixed windows in process memory, counted in the caller's turn: the store of one process (the
 * default with SQLite). A window starts with a key's first call when none is active and ends
 * `windowS` later; every call counts, refused ones too (as rate-limiter-flexible's stores do).
 *
 * Not rate-limiter-flexible's RateLimiterMemory, which counts the same way behind a promise:
 * answering synchronously takes server CPU off every request under load (BENCHMARKS.md). Ended windows are dropped once the map has doubled since the last sweep, so
 * keys that stop calling (client addresses on /authenticate) do not pile up.
 */
export function memoryLimiter(
  limit: number,
  windowS: number,
  now: () => number = () => Date.now(),
): RateLimiter & { readonly size: number } {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const MIN_SWEEP = 1024;
  let sweepAt = MIN_SWEEP;
  const sweep = (t: number) => {
    for (const [key, w] of windows) if (w.endsAt <= t) windows.delete(key);
    sweepAt = Math.max(MIN_SWEEP, 2 * windows.size);
  };
  return {
    limit,
    windowS,
    hit(key, cost = 1): WindowState {
      const t = now();
      let w = windows.get(key);
      if (w === undefined || w.endsAt <= t) {
        if (windows.size >= sweepAt) sweep(t);
        windows.set(key, (w = { count: 0, endsAt: t + windowS * 1000 }));
      }
      w.count += cost;
      const allowed = w.count <= limit;
      return { allowed, limit, remaining: allowed ? limit - w.count : 0, resetS: Math.max(1, Math.ceil((w.endsAt - t) / 1000)), windowS };
    },
    /** How many windows are held (for tests of the sweep). */
    get size() {
      return windows.size;
    },
    async close() {
      windows.clear();
    },
  };
}
