import pg from 'pg';
import type { Config } from '../config.ts';
import { createLimiter, type RateLimitStore } from './index.ts';
import type { RateLimiter } from '../../engine/rate-limit.ts';

export interface ServiceLimiters {
  /** Per API key, every /maintenance call; undefined when limiting is off. */
  readonly keys: RateLimiter | undefined;
  /** Per client address, every /authenticate call; undefined when limiting is off. */
  readonly auth: RateLimiter | undefined;
  readonly store: RateLimitStore | 'off';
  close(): Promise<void>;
}

export const AUTH_WINDOW_S = 60;

/**
 * The default store: process memory for SQLite (the embedded single process), the database for
 * PostgreSQL (several processes on one database must share one window per key).
 */
export async function openLimiters(
  config: Pick<
    Config,
    'databaseUrl' | 'dataDir' | 'rateLimitStore' | 'rateLimitMax' | 'rateLimitWindowS' | 'authRateLimitMax' | 'pgPreparedStatements'
  >,
  onUnnamed?: (why: string) => void,
  /** The memory store's clock (the service's, which tests move). */
  now?: () => number,
): Promise<ServiceLimiters> {
  if (config.rateLimitStore === 'off') return { keys: undefined, auth: undefined, store: 'off', close: async () => {} };
  const store: RateLimitStore = config.rateLimitStore ?? (config.databaseUrl ? 'database' : 'memory');
  const pool = store === 'database' && config.databaseUrl ? new pg.Pool({ connectionString: config.databaseUrl, max: 4 }) : undefined;
  pool?.on('error', () => {});
  const where = {
    store,
    dataDir: config.dataDir,
    preparedStatements: config.pgPreparedStatements,
    onUnnamed,
    now,
    ...(pool ? { pool } : {}),
  };
  const keys = await createLimiter({ name: 'key', max: config.rateLimitMax, windowS: config.rateLimitWindowS, ...where });
  const auth = await createLimiter({ name: 'auth', max: config.authRateLimitMax, windowS: AUTH_WINDOW_S, ...where });
  return {
    keys,
    auth,
    store,
    async close() {
      await keys.close();
      await auth.close();
      await pool?.end();
    },
  };
}
