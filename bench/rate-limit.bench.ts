/**
 * The cost of rate limiting: list throughput (a page of an existing cursor, so the
 * search itself does not drown the limiter) with RATE_LIMIT_STORE=off, memory and database,
 * as ratios to "off", on SQLite; servers pinned to CPU 0, autocannon in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from './support/auth.ts';
import { load } from './support/load.ts';
import { runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const BASE = '/v4_server/external/v1';

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-rl-'));
  const port = 18090;
  const origin = `http://127.0.0.1:${port}`;
  const env = (store: string) => ({
    DATA_DIR: dataDir,
    PORT: String(port),
    RATE_LIMIT_STORE: store,
    RATE_LIMIT_MAX: '1000000000',
    AUTH_RATE_LIMIT_MAX: '1000000',
    LOG_LEVEL: 'silent',
  });
  try {
    const first = await startProcess(SERVE, env('off'), `${origin}/healthz`);
    first.kill('SIGTERM');
    await new Promise((r) => first.on('exit', r));
    await runCommand(['bin/mrs.js', 'seed', 'demo.main', '--work-orders', '20000'], env('off'));
    const key = (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], env('off'))).trim();
    const rows: (string | number)[][] = [['RATE_LIMIT_STORE', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio to off']];
    let off = 0;
    for (const store of ['off', 'memory', 'database']) {
      const server = await startProcess(SERVE, env(store), `${origin}/healthz`);
      try {
        const headers = await bearer(origin, key);
        const search = await fetch(`${origin}${BASE}/maintenance/work_orders?department_id=7`, { headers });
        const cursor = search.headers.get('x-cursor');
        const r = await load(`${origin}${BASE}/maintenance/work_orders?$cursor=${cursor}&$page=2`, { headers });
        if (store === 'off') off = r.rps;
        rows.push([store, fmt(r.rps, 0), r.p50, r.p99, r.non2xx + r.errors, fmt(r.rps / off)]);
      } finally {
        server.kill('SIGTERM');
        await new Promise((res) => server.on('exit', res));
      }
    }
    console.log(table(rows));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
