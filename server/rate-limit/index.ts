import Database from 'better-sqlite3';
import { join } from 'node:path';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterSQLite } from 'rate-limiter-flexible';
import { fromFlexible } from './flexible.ts';
import type { RateLimiter } from '../../engine/rate-limit.ts';

export { rateLimitHeaders, type RateLimiter, type WindowState } from '../../engine/rate-limit.ts';

export type RateLimitStore = 'memory' | 'database';

export interface LimiterOptions {
  readonly name: string;
  readonly max: number;
  readonly windowS: number;
  readonly store: RateLimitStore;
  /** The database store: the SQLite data directory, or the PostgreSQL pool. */
  readonly dataDir?: string;
  readonly pool?: pg.Pool;
}

const ready = (make: (cb: (err?: unknown) => void) => unknown) =>
  new Promise<void>((resolve, reject) => void make((err) => (err ? reject(err) : resolve())));

/**
 * A limiter in process memory (one process), or in the database every process shares:
 * PostgreSQL's public schema, or one SQLite file in the data directory.
 */
export async function createLimiter(o: LimiterOptions): Promise<RateLimiter> {
  const base = { points: o.max, duration: o.windowS, keyPrefix: o.name };
  if (o.store === 'memory') return fromFlexible(new RateLimiterMemory(base), o.max, o.windowS, async () => {});
  const tableName = 'mrs_rate_limits';
  if (o.pool) {
    let rl!: RateLimiterPostgres;
    await ready((cb) => (rl = new RateLimiterPostgres({ ...base, storeClient: o.pool, tableName, schemaName: 'public', clearExpiredByTimeout: true }, cb)));
    return fromFlexible(rl, o.max, o.windowS, async () => {});
  }
  if (!o.dataDir) throw new Error('the database rate-limit store needs a data directory or a pool');
  const db = new Database(join(o.dataDir, 'mrs-rate-limits.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  let rl!: RateLimiterSQLite;
  await ready((cb) => (rl = new RateLimiterSQLite({ ...base, storeClient: db, storeType: 'better-sqlite3', tableName, clearExpiredByTimeout: true }, cb)));
  return fromFlexible(rl, o.max, o.windowS, async () => {
    db.close();
  });
}
