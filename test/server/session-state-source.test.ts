import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type DialectAdapter } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../server/rate-limit/index.ts';
import { openPostgres } from '../../server/tenants/postgres.ts';

/**
 * SQL that leaves state on a server session for a later transaction, which a transaction pooler
 * (PgBouncer `pool_mode = transaction`) hands to another client: session advisory locks (the
 * `_xact_` forms end with their transaction), LISTEN, SET without LOCAL, set_config(..., false),
 * temporary tables, search_path, SQL-level PREPARE and cursors that outlive a transaction.
 */
export const SESSION_SQL: readonly RegExp[] = [
  /pg_(try_)?advisory_lock(_shared)?\s*\(/i,
  /(^|;)\s*(un)?listen\s/i,
  /(^|;)\s*set\s+(?!local\s)(session\s+)?[a-z_.]+\s*(=|to\s)/i,
  /(^|;)\s*reset\s+[a-z_.]+/i,
  /set_config\s*\([^)]*,\s*false\s*\)/i,
  /create\s+(global\s+|local\s+)?temp(orary)?\s+table/i,
  /search_path/i,
  /(^|;)\s*(prepare|deallocate)\s/i,
  /cursor\s+with\s+hold/i,
];

const ROOT = new URL('../..', import.meta.url).pathname;

/** The string and template literals of a source file (where SQL text is written). */
function literals(source: string): string[] {
  return [...source.matchAll(/`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g)].map((m) => m[0].slice(1, -1));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js)$/.test(f) && !/\.test\.ts$|\.d\.ts$/.test(f))
    .map((f) => join(dir, f));
}

const offending = (texts: string[]) => texts.filter((t) => SESSION_SQL.some((re) => re.test(t)));

/** The SQL an adapter's migration lock sends, recorded without a database. */
async function migrationLockSql(adapter: DialectAdapter): Promise<string[]> {
  const sent: string[] = [];
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => adapter,
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (e) => void sent.push(e.query.sql),
  });
  const options = { lockTable: 'mrs_migration_lock', lockRowId: 'migration_lock' };
  await adapter.acquireMigrationLock(db, options);
  await adapter.releaseMigrationLock(db, options);
  return sent;
}

describe('no session-level SQL (the service must work through a transaction pooler)', () => {
  it('the patterns catch what they are for, and let the transaction-scoped forms through', () => {
    for (const bad of [
      'select pg_advisory_lock(1)',
      'LISTEN mrs_events',
      'set statement_timeout = 5000',
      'SET search_path TO x',
      'set session timezone to utc',
      "select set_config('lock_timeout', '1s', false)",
      'create temp table t (a int)',
      'PREPARE q AS select 1',
      'declare c cursor with hold for select 1',
    ])
      expect(offending([bad]), bad).toEqual([bad]);
    for (const good of [
      'select pg_advisory_xact_lock(1)',
      'set local statement_timeout = 5000',
      "select set_config('lock_timeout', '1s', true)",
      'update "t" set "a" = $1',
      'listen',
      'begin',
      'create unlogged table if not exists t (a int)',
    ])
      expect(offending([good]), good).toEqual([]);
  });

  it('none in the SQL text of server/, engine/, adapters/ and bin/', () => {
    const found = ['server', 'engine', 'adapters', 'bin']
      .flatMap(sourceFiles)
      .flatMap((f) => offending(literals(readFileSync(join(ROOT, f), 'utf8'))).map((t) => `${f}: ${t}`));
    expect(found).toEqual([]);
  });

  it("none in the migration lock of the service's Kysely dialect (Kysely's own takes a session lock)", async () => {
    const { db } = openPostgres('postgres://nobody@127.0.0.1:1/none');
    try {
      expect(offending(await migrationLockSql(db.getExecutor().adapter))).toEqual([]);
      expect(offending(await migrationLockSql(new PostgresAdapter()))).not.toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('rate-limiter-flexible names no statement when PG_PREPARED_STATEMENTS is off', async () => {
    const named = async (preparedStatements: boolean) => {
      const sent: { name?: string }[] = [];
      const query = async (q: string | { name?: string }) => {
        if (typeof q !== 'string') sent.push(q);
        return { rows: [{ points: 1, expire: Date.now() + 60_000, relpersistence: 'u' }], rowCount: 1 };
      };
      const pool = { query, connect: async () => ({ query, release() {} }) } as never;
      const limiter = await createLimiter({ name: 'k', max: 5, windowS: 60, store: 'database', pool, preparedStatements });
      await limiter.hit('a');
      await limiter.close();
      return sent.filter((q) => q.name !== undefined).length;
    };
    expect(await named(false)).toBe(0);
    expect(await named(true)).toBeGreaterThan(0);
  });
});
