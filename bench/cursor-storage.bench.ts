/**
 * Cursor storage with the cursors' lifetime (CURSOR_TTL_S): 6,000 new searches on 10,000 work
 * orders, one in three then asking its page 2 (which makes a lazy cursor's ids), against the
 * service in process with a clock that moves STEP_MS a search. Every 1,000 searches: the cursors
 * stored (live and expired not yet swept) and the store's bytes, for TTL 900 and 3900, then the
 * same 6,000 searches in one burst (everything made within one TTL), and that burst again with
 * CURSOR_MAX_LIVE=2000, on SQLite and (with TEST_DATABASE_URL) PostgreSQL. What holds the store
 * down is the sweep that new searches run: expired cursors, then the cap's.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../server/config.ts';
import { seedWorkOrders } from '../server/seed.ts';
import { createService, ensureDemoTenant } from '../server/service.ts';
import { login } from '../test/support/auth.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';
import { benchDatabases, type BenchDb } from './support/tenant.ts';
import { fmt, table } from './support/stats.ts';

const M = '/v4_server/external/v1/maintenance';
const SEARCHES = 6_000;
const RECORDS = 10_000;
const STATUSES = ['open', 'closed', 'in_progress'];

async function storeProbe(kind: BenchDb, dataDir: string, url?: string) {
  if (kind === 'sqlite') {
    const db = new Database(join(dataDir, 'demo.main.sqlite'), { readonly: true });
    const size = db.prepare(`select coalesce(sum(pgsize), 0) as b from dbstat where name like '%mrs_cursors%'`);
    const count = db.prepare('select count(*) as n from mrs_cursors where chunk = 0');
    return {
      read: async () => ({ bytes: Number((size.get() as { b: number }).b), cursors: Number((count.get() as { n: number }).n) }),
      close: async () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  return {
    async read() {
      const { rows } = await pool.query(`select pg_total_relation_size('"demo.main".mrs_cursors') as b,
        (select count(*) from "demo.main".mrs_cursors where chunk = 0) as n`);
      return { bytes: Number(rows[0].b), cursors: Number(rows[0].n) };
    },
    close: () => pool.end(),
  };
}

/** One run: the rows of (searches done, cursors stored, KiB) for a TTL and a step of the clock. */
async function measure(kind: BenchDb, ttlS: number, stepMs: number, maxLive: number): Promise<(string | number)[][]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-cursors-'));
  const fresh = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
  const clock = { t: Date.now() };
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(fresh ? { DATABASE_URL: fresh.url } : {}),
    CURSOR_TTL_S: String(ttlS),
    CURSOR_MAX_LIVE: String(maxLive),
    RATE_LIMIT_STORE: 'off',
  });
  const service = await createService(config, { now: () => clock.t, onUnexpectedError: (e) => console.error(e) });
  const rows: (string | number)[][] = [];
  try {
    await ensureDemoTenant(service.tenants);
    const tenant = (await service.tenants.get('demo.main'))!;
    await seedWorkOrders(tenant, service.engine.registry, RECORDS);
    const headers = { authorization: `Bearer ${(await login(service)).token}` };
    const probe = await storeProbe(kind, dataDir, fresh?.url);
    try {
      for (let i = 1; i <= SEARCHES; i++) {
        clock.t += stepMs;
        const query = `department_id=${1 + (i % 9)}&status=${STATUSES[i % 3]}&priority:gte=${i % 4}&$orderBy=${i % 2 ? 'id' : 'priority'}`;
        const first = await service.app.request(`${M}/work_orders?${query}`, { headers });
        if (first.status !== 200) throw new Error(`search ${i}: ${first.status} ${await first.text()}`);
        const cursor = first.headers.get('x-cursor');
        if (i % 3 === 0 && cursor)
          await (await service.app.request(`${M}/work_orders?$cursor=${cursor}&$page=2`, { headers })).arrayBuffer();
        if (i % 1000 === 0) {
          const { bytes, cursors } = await probe.read();
          rows.push([i, cursors, fmt(bytes / 1024, 0)]);
        }
      }
    } finally {
      await probe.close();
    }
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
    await fresh?.drop();
  }
  return rows;
}

export async function run(): Promise<void> {
  for (const kind of benchDatabases()) {
    // 1.2 s a search: 6,000 over two hours, about four clients each at its 900 calls an hour.
    const cases = [
      ['TTL 900, 1.2 s a search', 900, 1200, 100_000],
      ['TTL 3900, 1.2 s a search', 3900, 1200, 100_000],
      ['TTL 3900, one burst', 3900, 10, 100_000],
      ['the burst, CURSOR_MAX_LIVE=2000', 3900, 10, 2000],
    ] as const;
    const results: (readonly [string, (string | number)[][]])[] = [];
    for (const [name, ttl, step, maxLive] of cases) results.push([name, await measure(kind, ttl, step, maxLive)] as const);
    const header = ['searches', ...results.flatMap(([name]) => [`${name}: cursors`, 'KiB'])];
    const rows = results[0]![1].map((_, r) => [results[0]![1][r]![0]!, ...results.flatMap(([, rs]) => [rs[r]![1]!, rs[r]![2]!])]);
    console.log(`\n${kind}, ${RECORDS} work orders, ${SEARCHES} new searches (a third read page 2):`);
    console.log(table([header, ...rows]));
  }
}
