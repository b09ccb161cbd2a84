/**
 * What closing a tenant costs its next request, and what an open tenant holds, in process: a
 * one-record read in turns across tenants with all of them open against the same with
 * `TENANT_OPEN_MAX=1` (each request opens its tenant again: the file and its pragmas on SQLite,
 * the schema check and compiled statements on PostgreSQL), and the JavaScript heap with BENCH_OPEN
 * tenants (default 100) open against one (SQLite's connections are outside it: about 0.6 MiB a
 * tenant, BENCHMARKS.md). For choosing TENANT_OPEN_MAX per database.
 * Not part of `npm run bench`.
 *
 *   node --expose-gc --import tsx bench/tenant-reopen.ts   (PostgreSQL too with TEST_DATABASE_URL)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/config.ts';
import { createService, type Service } from '../server/service.ts';
import { authenticate, ensureUser, makeKey } from '../test/support/auth.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';
import { eachLimited } from '../server/migrate-tenants.ts';
import { onEachDatabase } from './support/databases.ts';

const OPEN = Number(process.env.BENCH_OPEN ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const M = '/v4_server/external/v1/maintenance';
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

async function tokens(service: Service, names: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  await eachLimited(names, 4, async (clientDb) => {
    await ensureUser(service, clientDb, 'admin');
    out[names.indexOf(clientDb)] = await authenticate(service, clientDb, 'admin', (await makeKey(service, clientDb, 'admin')).key);
  });
  return out;
}

/** Milliseconds of each read, tenants taken in turns. */
async function reads(service: Service, bearer: readonly string[], rounds: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const r = await service.app.request(`${M}/work_orders?$limit=1`, { headers: { authorization: `Bearer ${bearer[i % bearer.length]}` } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`read: ${r.status}`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

const memory = () => {
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
};

await onEachDatabase(async (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-reopen-'));
  const db = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: db?.url ?? '',
    LOG_LEVEL: 'silent',
    TENANT_IDLE_S: '0',
    AUTH_RATE_LIMIT_MAX: '1000000000',
    RATE_LIMIT_MAX: '1000000000',
  };
  try {
    const names = Array.from({ length: OPEN }, (_, i) => `reopen.t${i}`);
    let open: Service | undefined = await createService(loadConfig({ ...env, TENANT_OPEN_MAX: '0' }));
    let bearer: string[];
    let all: { heap: number };
    let warm: number[];
    try {
      bearer = await tokens(open, names);
      await reads(open, bearer, OPEN); // every tenant opened and its statements compiled
      warm = await reads(open, bearer.slice(0, 2), ROUNDS);
      all = memory();
    } finally {
      await open.close();
      open = undefined;
    }
    const capped = await createService(loadConfig({ ...env, TENANT_OPEN_MAX: '1' }));
    try {
      await reads(capped, bearer, OPEN); // the same requests, one tenant left open
      const one = memory();
      const cold = await reads(capped, bearer.slice(0, 2), ROUNDS);
      console.log(
        `${kind}: ${OPEN} tenants open hold ${mib(all.heap - one.heap)} MiB more heap than one ` +
          `(${((all.heap - one.heap) / (OPEN - 1) / 1024).toFixed(0)} KiB each); a read opening its tenant again ` +
          `${median(cold).toFixed(2)} ms against ${median(warm).toFixed(2)} ms open (median of ${ROUNDS}, two tenants in turns)`,
      );
    } finally {
      await capped.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await db?.drop();
  }
});
