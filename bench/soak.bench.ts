/**
 * Memory and storage over a long run of constant new searches: `mrs serve` on 100,000
 * work orders with CURSOR_TTL_S=60, autocannon creating a cursor per request for SOAK_SECONDS
 * (default 300); every 30 s it prints the server's RSS and the cursors stored, so a leak or
 * unbounded cursor storage shows as a climb. SQLite.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from './support/auth.ts';
import { load } from './support/load.ts';
import { rssMiB, runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const BASE = '/v4_server/external/v1';

export async function run(): Promise<void> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 300);
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-soak-'));
  const port = 18280;
  const origin = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, PORT: String(port), CURSOR_TTL_S: '60', RATE_LIMIT_MAX: '1000000000', LOG_LEVEL: 'silent' };
  let server = await startProcess(SERVE, env, `${origin}/healthz`);
  try {
    server.kill('SIGTERM');
    await new Promise((r) => server.on('exit', r));
    await runCommand(['bin/mrs.js', 'seed', 'demo.main', '--work-orders', '100000'], env);
    const key = (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], env)).trim();
    server = await startProcess(SERVE, env, `${origin}/healthz`);
    const headers = await bearer(origin, key);
    const db = new Database(join(dataDir, 'demo.main.sqlite'), { readonly: true });
    const cursors = () => (db.prepare('select count(*) as n from mrs_cursors where chunk = 0').get() as { n: number }).n;
    const rows: (string | number)[][] = [['after s', 'RSS MiB', 'cursors stored', 'req/s in the slice']];
    const slice = 30;
    for (let t = slice; t <= seconds; t += slice) {
      const r = await load(`${origin}${BASE}/maintenance/work_orders?department_id=7&status=open`, {
        headers,
        seconds: slice,
        connections: 20,
      });
      rows.push([t, fmt(await rssMiB(server.pid!), 0), cursors(), fmt(r.rps, 0)]);
    }
    db.close();
    console.log(table(rows));
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
