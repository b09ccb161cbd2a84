import type { TenantDb } from '../../engine/dialects/types.ts';
import { feedWatcher } from '../../engine/events/feed-watcher.ts';
import { runningOn } from '../../engine/tenant-use.ts';
import type { TenantLease } from './types.ts';

export interface OpenOnceOptions {
  /** A tenant not used in this long is released (ms); 0 or unset: kept open. */
  readonly idleMs?: number;
  /** Over this many open, the least recently used tenants without a lease are released; 0 or unset: no cap. */
  readonly maxOpen?: number;
  /** Lets go of what an open tenant holds (its file, its compiled statements, its state). */
  readonly release?: (clientDb: string, t: TenantDb) => Promise<void>;
}

/**
 * Opens (and migrates) each tenant once per process: concurrent first requests share one
 * opening, and a failed opening is forgotten so the next request tries again. A tenant is in use
 * while a lease holds it (`acquire`), work runs on it (`usingTenant`) or its feed is followed (an
 * event stream); one not in use may be released, and is opened again on its next use. With
 * `maxOpen`, whenever a tenant is opened or a lease ends, the least recently used tenants not in
 * use are released while more than that are open; with `idleMs`, those not used for that long too.
 * Released is decided and done in one step, so a lease taken after it opens the tenant afresh.
 */
export function openOnce(make: (clientDb: string) => Promise<TenantDb>, options: OpenOnceOptions = {}) {
  const open = new Map<string, Promise<TenantDb>>();
  /** The opened ones (a tenant still opening cannot be released). */
  const ready = new Map<string, TenantDb>();
  /** Leases held, by tenant. */
  const leases = new Map<string, number>();
  /** Last use by tenant, least recent first (a use moves it to the end). */
  const usedAt = new Map<string, number>();
  const idleMs = options.idleMs ?? 0;
  const maxOpen = options.maxOpen ?? 0;
  const touch = (clientDb: string) => {
    usedAt.delete(clientDb);
    usedAt.set(clientDb, performance.now());
  };
  const inUse = (clientDb: string, t: TenantDb) => leases.has(clientDb) || runningOn(t) > 0 || feedWatcher(t).listeners > 0;
  /** Releases the tenant if it is open and not in use; false if it stays. */
  const releaseIfFree = (clientDb: string): boolean => {
    const t = ready.get(clientDb);
    if (!t || inUse(clientDb, t)) return false;
    open.delete(clientDb);
    ready.delete(clientDb);
    usedAt.delete(clientDb);
    void options.release?.(clientDb, t).catch(() => {});
    return true;
  };
  const trim = () => {
    if (maxOpen <= 0) return;
    for (const clientDb of usedAt.keys()) {
      if (open.size <= maxOpen) return;
      releaseIfFree(clientDb);
    }
  };
  const sweepIdle = () => {
    const before = performance.now() - idleMs;
    for (const [clientDb, at] of usedAt) {
      if (at > before) break; // the rest were used more recently
      releaseIfFree(clientDb);
    }
    trim(); // an event stream that ended kept a tenant over the cap
  };
  const load = (clientDb: string): Promise<TenantDb> => {
    touch(clientDb);
    let p = open.get(clientDb);
    if (!p) {
      const opening = make(clientDb);
      p = opening;
      opening.then(
        (t) => {
          if (open.get(clientDb) !== opening) return;
          ready.set(clientDb, t);
          touch(clientDb); // opened counts as used: the request that waited for it has yet to start
          trim();
        },
        () => open.get(clientDb) === opening && open.delete(clientDb) && usedAt.delete(clientDb),
      );
      open.set(clientDb, opening);
    }
    return p;
  };
  /** Opens the tenant and holds it open until the lease's `release`. */
  const acquire = async (clientDb: string): Promise<TenantLease> => {
    leases.set(clientDb, (leases.get(clientDb) ?? 0) + 1);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const n = leases.get(clientDb)! - 1;
      if (n > 0) leases.set(clientDb, n);
      else leases.delete(clientDb);
      if (open.has(clientDb)) touch(clientDb);
      trim();
    };
    try {
      return { tenant: await load(clientDb), release };
    } catch (e) {
      release();
      throw e;
    }
  };
  // The idle time is a setting of minutes; checked at twice its rate, at most once a minute.
  const timer = idleMs > 0 ? setInterval(sweepIdle, Math.max(50, Math.min(idleMs / 2, 60_000))) : undefined;
  timer?.unref();
  return {
    open,
    load,
    acquire,
    /** Stops releasing (the store closes every tenant itself). */
    stop: () => clearInterval(timer),
  };
}
