import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase } from '../../test/support/pg.ts';
import { bearer } from './auth.ts';
import { serveEnv } from './demo.ts';
import { runCommand, SERVE, startProcess } from './processes.ts';

export interface SeededDemo {
  /** `mrs serve`'s environment for this database (DATA_DIR, PORT, DATABASE_URL on PostgreSQL). */
  readonly env: Record<string, string>;
  readonly origin: string;
  /** The fresh PostgreSQL database (undefined on SQLite runs). */
  readonly pgUrl: string | undefined;
  /** demo.main's SQLite file, which the baseline server opens on every run (seeded, or empty tables, as asked). */
  readonly sqliteFile: string;
  /** What the baseline server needs to read PostgreSQL too (nothing on SQLite runs). */
  readonly baselineEnv: Record<string, string>;
  /** `Authorization` for a new API key of admin, made with `mrs key create`. */
  adminHeaders(): Promise<Record<string, string>>;
  /** Removes the data directory and drops the PostgreSQL database. */
  remove(): Promise<void>;
}

/**
 * Tenant demo.main with its admin (made by a first start of `mrs serve`) and 100,000 seeded work
 * orders, on fresh data: a temporary directory, and on PostgreSQL runs a fresh database. The
 * baseline server reads a SQLite file on every run: on PostgreSQL runs demo.main's SQLite file is
 * seeded too when `sqliteOnPostgres` is `seeded` (the HTTP benchmark's floor reads it), or only
 * created (`tables`).
 */
export async function seededDemo(kind: 'sqlite' | 'postgres', port: number, sqliteOnPostgres: 'seeded' | 'tables'): Promise<SeededDemo> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-'));
  const pgdb = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
  const env: Record<string, string> = { ...serveEnv(dataDir, port), ...(pgdb ? { DATABASE_URL: pgdb.url } : {}) };
  const origin = `http://127.0.0.1:${port}`;
  const remove = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await pgdb?.drop();
  };
  try {
    const first = await startProcess(SERVE, env, `${origin}/healthz`);
    first.kill('SIGTERM');
    await new Promise((r) => first.on('exit', r));
    const seed = (e: Record<string, string>) => runCommand(['bin/mrs.js', 'seed', 'demo.main', '--work-orders', '100000'], e);
    await seed(env);
    if (pgdb) {
      const sqliteEnv = { ...env, DATABASE_URL: '' }; // empty: unset, so SQLite under DATA_DIR
      await runCommand(['bin/mrs.js', 'tenant', 'create', 'demo.main'], sqliteEnv);
      if (sqliteOnPostgres === 'seeded') await seed(sqliteEnv);
    }
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    env,
    origin,
    pgUrl: pgdb?.url,
    sqliteFile: join(dataDir, 'demo.main.sqlite'),
    baselineEnv: pgdb ? { BASELINE_PG_URL: pgdb.url, BASELINE_PG_SCHEMA: 'demo.main' } : {},
    adminHeaders: async () => bearer(origin, (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], env)).trim()),
    remove,
  };
}
