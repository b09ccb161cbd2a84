import type { TenantDb } from '../../engine/dialects/types.ts';
import { feedWatcher } from '../../engine/events/feed-watcher.ts';
import { runningOn } from '../../engine/tenant-use.ts';

export interface OpenOnceOptions {
  /** A tenant not asked for in this long is released (ms); 0 or unset: kept open. */
  readonly idleMs?: number;
  /** Lets go of what an open tenant holds (its file, its compiled statements, its state). */
  readonly release?: (clientDb: string, t: TenantDb) => Promise<void>;
}

/**
 * Opens (and migrates) each tenant once per process: concurrent first requests share one
 * opening, and a failed opening is forgotten so the next request tries again. With `idleMs`, a
 * tenant nobody asked for in that long, and whose feed nobody follows (an event stream),
 * and on which no request runs (`usingTenant`), is released, and opened again on
 * its next request: memory follows the active tenants, not all of them.
 */
export function openOnce(make: (clientDb: string) => Promise<TenantDb>, options: OpenOnceOptions = {}) {
  const open = new Map<string, Promise<TenantDb>>();
  const usedAt = new Map<string, number>();
  const idleMs = options.idleMs ?? 0;
  const load = (clientDb: string): Promise<TenantDb> => {
    usedAt.set(clientDb, performance.now());
    let p = open.get(clientDb);
    if (!p) {
      p = make(clientDb);
      p.catch(() => open.delete(clientDb));
      open.set(clientDb, p);
    }
    return p;
  };
  let sweeping = false;
  const releaseIdle = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const before = performance.now() - idleMs;
      for (const [clientDb, at] of usedAt) {
        if (at > before) continue;
        const p = open.get(clientDb);
        const t = await p?.catch(() => undefined);
        if (t && feedWatcher(t).listeners > 0) continue;
        // A request outlasting the idle time holds its tenant, which counts as used until it ends.
        if (t && runningOn(t) > 0) {
          usedAt.set(clientDb, performance.now());
          continue;
        }
        if ((usedAt.get(clientDb) ?? 0) > before || open.get(clientDb) !== p) continue; // asked for again meanwhile
        open.delete(clientDb);
        usedAt.delete(clientDb);
        if (t) await options.release?.(clientDb, t).catch(() => {});
      }
    } finally {
      sweeping = false;
    }
  };
  // Released between idleMs and 1.5 idleMs after the last use.
  const timer = idleMs > 0 ? setInterval(() => void releaseIdle(), Math.max(50, Math.min(idleMs / 2, 60_000))) : undefined;
  timer?.unref();
  return {
    open,
    load,
    /** Stops releasing (the store closes every tenant itself). */
    stop: () => clearInterval(timer),
  };
}
