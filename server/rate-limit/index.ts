import Database from 'better-sqlite3';
import { join } from 'node:path';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterSQLite } from 'rate-limiter-flexible';
import { fromFlexible } from './flexible.ts';
import { memoryLimiter } from './memory.ts';
import { isPoolerError, UNNAMED_WHY, type OnUnnamed } from '../tenants/named-statements.ts';
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
  /** PostgreSQL: let rate-limiter-flexible name its statements (false behind a transaction pooler). */
  readonly preparedStatements?: boolean;
  /** Told when named statements fail behind a transaction pooler and the store stops naming them. */
  readonly onUnnamed?: OnUnnamed | undefined;
  /** The memory store's clock in epoch milliseconds (default: Date.now). */
  readonly now?: (() => number) | undefined;
}

/**
 * rate-limiter-flexible names every statement it sends (session state a transaction pooler
 * loses between transactions); without prepared statements its queries go to the pool unnamed.
 */
const unnamed = (pool: pg.Pool) => ({
  query: (q: { text: string; values?: unknown[] }) => pool.query(q.text, q.values),
});

/** Named statements until a transaction pooler shows (tenants/named-statements.ts), then unnamed, the failed one sent again. */
function namedUntilPooler(pool: pg.Pool, onUnnamed: OnUnnamed) {
  let named = true;
  return {
    async query(q: { name?: string; text: string; values?: unknown[] }) {
      if (!named) return pool.query(q.text, q.values);
      try {
        return await pool.query(q);
      } catch (e) {
        if (!isPoolerError(e as { code?: string })) throw e;
        if (named) onUnnamed(UNNAMED_WHY);
        named = false;
        return pool.query(q.text, q.values);
      }
    },
  };
}

const ready = (make: (cb: (err?: unknown) => void) => unknown) =>
  new Promise<void>((resolve, reject) => void make((err) => (err ? reject(err) : resolve())));

/**
 * The PostgreSQL store's table (rate-limiter-flexible's own layout), unlogged: every request
 * writes it, and window counts are not worth a WAL record and a flush each; a crash empties the
 * table, so windows start afresh. Tables made logged by earlier versions are switched over.
 * Processes starting together take turns through an advisory lock.
 */
async function unloggedLimitTable(pool: pg.Pool, table: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('mrs-rate-limit-table'))`);
    await client.query(`create unlogged table if not exists public.${table} (
      key varchar(255) primary key, points integer not null default 0, expire bigint)`);
    const { rows } = await client.query(`select relpersistence from pg_class where oid = $1::regclass`, [`public.${table}`]);
    if (rows[0]?.relpersistence === 'p') await client.query(`alter table public.${table} set unlogged`);
    await client.query('commit');
  } catch (e) {
    await client.query('rollback').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * A limiter in process memory (one process), or in the database every process shares:
 * PostgreSQL's public schema, or one SQLite file in the data directory.
 */
export async function createLimiter(o: LimiterOptions): Promise<RateLimiter> {
  const base = { points: o.max, duration: o.windowS, keyPrefix: o.name };
  if (o.store === 'memory') return memoryLimiter(o.max, o.windowS, o.now);
  const tableName = 'mrs_rate_limits';
  if (o.pool) {
    await unloggedLimitTable(o.pool, tableName);
    let rl!: RateLimiterPostgres;
    const storeClient = o.preparedStatements === false ? unnamed(o.pool) : namedUntilPooler(o.pool, o.onUnnamed ?? (() => {}));
    await ready(
      (cb) =>
        (rl = new RateLimiterPostgres(
          { ...base, storeClient, storeType: 'pool', tableName, schemaName: 'public', tableCreated: true, clearExpiredByTimeout: true },
          cb,
        )),
    );
    return fromFlexible(rl, o.max, o.windowS, async () => {});
  }
  if (!o.dataDir) throw new Error('the database rate-limit store needs a data directory or a pool');
  const db = new Database(join(o.dataDir, 'mrs-rate-limits.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  let rl!: RateLimiterSQLite;
  await ready(
    (cb) =>
      (rl = new RateLimiterSQLite({ ...base, storeClient: db, storeType: 'better-sqlite3', tableName, clearExpiredByTimeout: true }, cb)),
  );
  return fromFlexible(rl, o.max, o.windowS, async () => {
    db.close();
  });
}
