import type { TenantDb } from '../../engine/dialects/types.ts';
import { feedWatcher } from '../../engine/events/feed-watcher.ts';
import { runningOn, usedWithin } from '../../engine/tenant-use.ts';

export interface OpenOnceOptions {
  /** A tenant not asked for in this long is released (ms); 0 or unset: kept open. */
  readonly idleMs?: number;
  /** Over this many open, the least recently used idle tenants are released; 0 or unset: no cap. */
  readonly maxOpen?: number;
  /** A tenant asked for, opened or used by work less than this long ago is not released for the cap (ms, default 100). */
  readonly holdMs?: number;
  /** Lets go of what an open tenant holds (its file, its compiled statements, its state). */
  readonly release?: (clientDb: string, t: TenantDb) => Promise<void>;
}

/**
 * Opens (and migrates) each tenant once per process: concurrent first requests share one
 * opening, and a failed opening is forgotten so the next request tries again. With `idleMs`, a
 * tenant nobody asked for in that long, and whose feed nobody follows (an event stream),
 * and on which no request runs (`usingTenant`), is released, and opened again on
 * its next request: memory follows the active tenants, not all of them. With `maxOpen`, the
 * least recently used of those idle ones are released too while more than that are open.
 */
export function openOnce(make: (clientDb: string) => Promise<TenantDb>, options: OpenOnceOptions = {}) {
  const open = new Map<string, Promise<TenantDb>>();
  /** Last use by tenant, least recent first (a use moves it to the end). */
  const usedAt = new Map<string, number>();
  const idleMs = options.idleMs ?? 0;
  const maxOpen = options.maxOpen ?? 0;
  const holdMs = options.holdMs ?? 100;
  const touch = (clientDb: string) => {
    usedAt.delete(clientDb);
    usedAt.set(clientDb, performance.now());
  };
  /** Releases the tenant unless it was asked for after `before`, is followed, or has work running (or ended within `holdMs`). */
  const releaseIfIdle = async (clientDb: string, before: number, holdMs = 0): Promise<void> => {
    const p = open.get(clientDb);
    const t = await p?.catch(() => undefined);
    if (t && (feedWatcher(t).listeners > 0 || (holdMs > 0 && usedWithin(t, holdMs)))) return;
    // A request outlasting the idle time holds its tenant, which counts as used until it ends.
    if (t && runningOn(t) > 0) return touch(clientDb);
    if ((usedAt.get(clientDb) ?? 0) > before || open.get(clientDb) !== p) return; // asked for again meanwhile
    open.delete(clientDb);
    usedAt.delete(clientDb);
    if (t) await options.release?.(clientDb, t).catch(() => {});
  };
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      if (idleMs > 0) {
        const before = performance.now() - idleMs;
        for (const [clientDb, at] of [...usedAt]) if (at <= before) await releaseIfIdle(clientDb, before);
      }
      if (maxOpen > 0 && open.size > maxOpen) {
        const before = performance.now() - holdMs;
        for (const [clientDb, at] of [...usedAt]) {
          if (open.size <= maxOpen || at > before) break; // the rest were used more recently
          await releaseIfIdle(clientDb, before, holdMs);
        }
      }
    } finally {
      sweeping = false;
    }
  };
  const load = (clientDb: string): Promise<TenantDb> => {
    touch(clientDb);
    let p = open.get(clientDb);
    if (!p) {
      p = make(clientDb);
      // Opened counts as asked for: the request that waited for it has yet to start its work.
      p.then(
        () => open.has(clientDb) && touch(clientDb),
        () => open.delete(clientDb),
      );
      open.set(clientDb, p);
      if (maxOpen > 0 && open.size > maxOpen) void sweep();
    }
    return p;
  };
  // Idle ones released between idleMs and 1.5 idleMs after the last use; over the cap, within holdMs or 50 ms.
  const every = Math.min(idleMs > 0 ? Math.max(50, Math.min(idleMs / 2, 60_000)) : Infinity, maxOpen > 0 ? Math.max(50, holdMs) : Infinity);
  const timer = Number.isFinite(every) ? setInterval(() => void sweep(), every) : undefined;
  timer?.unref();
  return {
    open,
    load,
    /** Stops releasing (the store closes every tenant itself). */
    stop: () => clearInterval(timer),
  };
}
