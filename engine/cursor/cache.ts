import { Lru } from '../lru.ts';
import type { CursorMeta } from './snapshot-store.ts';

/**
 * What this process read of cursors lately. A cursor's metadata and chunk rows never change
 * once written, but for a lazy cursor's head, which its ids replace once (lazy.ts: a lazy head
 * is always read again, its chunk never kept); only its expiry moves, and only later (use
 * refreshes it, nothing shortens it, and the sweep removes only cursors past it). So while the
 * remembered expiry is ahead of the clock, a page can be served from memory without asking the
 * database whether the cursor still exists; past it, the database is asked again. Shared by
 * every tenant of the process: keys carry the tenant's number, and both maps are bounded (least
 * recently used out first).
 */
export interface CachedHead {
  readonly meta: CursorMeta;
  /** The expiry as this process last read or wrote it. */
  expiresAt: number;
}

/** Heads by count, chunk rows by characters (ASCII digits: a byte each). */
const heads = new Lru<CachedHead>(5_000);
const chunks = new Lru<string>(4 * 1024 * 1024, (ids) => ids.length + 64);
let tenants = 0;

/** The cache as one tenant's cursors see it. */
export function cursorCacheFor() {
  const prefix = `${++tenants}/`;
  return {
    head: (id: string) => heads.get(prefix + id),
    setHead: (id: string, head: CachedHead) => heads.set(prefix + id, head),
    chunk: (id: string, chunk: number) => chunks.get(`${prefix}${id}/${chunk}`),
    setChunk: (id: string, chunk: number, ids: string) => chunks.set(`${prefix}${id}/${chunk}`, ids),
    /** Forgets a cursor's head (its chunk rows age out: nothing reaches them without it). */
    forget: (id: string) => heads.delete(prefix + id),
  };
}
