/**
 * The client's cost: reading 10,000 work orders (200 pages of 50) through `for await` over a
 * client search, against the same pages fetched by hand with fetch (the first page, then each
 * `next` of Link, JSON parsed), ratios measured in turns in the same run, on SQLite and, with
 * TEST_DATABASE_URL, PostgreSQL (target: the client at least 0.8 of the hand loop's speed).
 * Then the client's browser bundle, minified and gzipped (target: under 15 KB).
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createClient } from '../client/index.ts';
import { makeKey } from '../test/support/auth.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';
import { loadConfig } from '../server/config.ts';
import { listen } from '../server/node-server.ts';
import { seedWorkOrders } from '../server/seed.ts';
import { createService, ensureDemoTenant } from '../server/service.ts';
import { fmt, interleavedMedianMs, table } from './support/stats.ts';
import { benchDatabases } from './support/tenant.ts';

const ROWS = Number(process.env.BENCH_ROWS_CLIENT ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS_CLIENT ?? 10);
const BASE = '/v4_server/external/v1';

export async function run(): Promise<void> {
  const rows: (string | number)[][] = [['database', 'by hand ms', 'client ms', 'speed ratio (hand ms / client ms)', 'target']];
  for (const kind of benchDatabases()) {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-bench-'));
    const fresh = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
    const env = { DATA_DIR: dir, PORT: '0', RATE_LIMIT_STORE: 'off', ...(fresh ? { DATABASE_URL: fresh.url } : {}) };
    const service = await createService(loadConfig(env));
    try {
      const tenant = await ensureDemoTenant(service.tenants).then(() => service.tenants.get('demo.main'));
      await seedWorkOrders(tenant!, service.engine.registry, ROWS);
      const listening = await listen(service);
      const origin = `http://127.0.0.1:${listening.port}`;
      const { key } = await makeKey(service, 'demo.main', 'admin');
      const client = createClient({ baseUrl: `${origin}${BASE}`, apiKey: { key, clientDb: 'demo.main', username: 'admin' } });
      const headers = { authorization: `Bearer ${await client.token()}` };
      const byHand = async () => {
        let n = 0;
        let url: string | undefined = `${origin}${BASE}/maintenance/work_orders?$limit=50`;
        while (url) {
          const res: Response = await fetch(url, { headers });
          n += ((await res.json()) as unknown[]).length;
          const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
          url = next ? `${origin}${next}` : undefined;
        }
        if (n !== ROWS) throw new Error(`by hand read ${n}`);
      };
      const throughClient = async () => {
        let n = 0;
        for await (const _ of client.collection('work_orders').list({ $limit: 50 })) n++;
        if (n !== ROWS) throw new Error(`the client read ${n}`);
      };
      const [hand, mine] = await interleavedMedianMs(RUNS, byHand, throughClient);
      rows.push([kind, fmt(hand), fmt(mine), fmt(hand / mine), '>= 0.8']);
      await listening.stop();
    } finally {
      await service.close().catch(() => {});
      await fresh?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\nreading ${ROWS} work orders, 50 a page, median of ${RUNS} runs in turns`);
  console.log(table(rows));
  const out = await build({
    entryPoints: [join(import.meta.dirname, '../client/index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  });
  const code = out.outputFiles[0]!.contents;
  console.log(
    `\nclient browser bundle: ${code.length} bytes minified, ${gzipSync(code, { level: 9 }).length} bytes gzipped (target < 15 KB)`,
  );
}
