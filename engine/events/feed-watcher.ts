import type { TenantDb } from '../dialects/types.ts';

/** How often a watched tenant's feed is polled: new events reach followers within about this. */
export const POLL_INTERVAL_MS = 250;

/** Told the highest seq committed each time a poll finds it risen (or reads it first). */
export type FeedListener = (highest: number) => void;

/**
 * Notices new events of one tenant's feed for everything in this process that follows it (event
 * streams): one poll of `EventLog.highest` every POLL_INTERVAL_MS, shared by
 * all of them, running only while one of them listens. A follower waiting for the next event
 * therefore holds no database connection and runs no statement of its own; it reads its new
 * events when told the feed rose past its position. Polling rather than LISTEN/NOTIFY because
 * it sees changes made by any process on the database and works through a pooler in
 * transaction mode (PgBouncer), where a session's LISTEN is lost. Polls fall on the same instants
 * for every tenant, so PostgreSQL answers those of all the followed schemas of a database in one
 * statement; SQLite, a file per tenant, is polled file by file.
 */
export class FeedWatcher {
  readonly #tenant: TenantDb;
  readonly #intervalMs: number;
  readonly #listeners = new Set<FeedListener>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling = false;
  /** The highest seq the last poll read (-1: not read yet since the watcher last started). */
  #highest = -1;

  constructor(tenant: TenantDb, intervalMs = POLL_INTERVAL_MS) {
    this.#tenant = tenant;
    this.#intervalMs = intervalMs;
  }

  /** The highest seq committed as of the last poll; -1 while no poll has answered. */
  get highest(): number {
    return this.#highest;
  }

  /** Listeners now; the poll runs while there is one. */
  get listeners(): number {
    return this.#listeners.size;
  }

  /**
   * Calls `listener` with the highest seq committed when a poll first reads it and whenever it
   * rises; the first poll follows at once. Returns the function that stops listening (the
   * last one to stop ends the polling).
   */
  listen(listener: FeedListener): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1 && !this.#polling) this.#schedule(0);
    else if (this.#highest >= 0) {
      const known = this.#highest;
      queueMicrotask(() => this.#listeners.has(listener) && listener(known));
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  #stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#highest = -1;
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    this.#polling = true;
    try {
      const highest = await this.#tenant.events.highest(this.#tenant);
      if (highest > this.#highest && this.#listeners.size > 0) {
        this.#highest = highest;
        for (const listener of [...this.#listeners]) listener(highest);
      }
    } catch {
      // A poll that fails (the database restarting, a pool closing) is tried again next time:
      // followers wait a little longer, none misses an event, as each reads from its own position.
    } finally {
      this.#polling = false;
      // On the interval's instants of the clock, the same for every watcher: polls of many tenants
      // then fall together, and a database answers them in one statement (EventLog.highest).
      if (this.#listeners.size > 0) this.#schedule(this.#intervalMs - (Date.now() % this.#intervalMs));
    }
  }
}

/** The slot of the watcher in a tenant's state. */
const SLOT = {};

/** The process's one watcher of a tenant database's feed (kept in its TenantState). */
export const feedWatcher = (t: TenantDb): FeedWatcher => t.state.get(SLOT, () => new FeedWatcher(t));
