/**
 * List throughput over HTTP (issue 4), SQLite, 100,000 seeded work orders: a new search matching
 * about 400-500 records (each request creates a cursor), and a later page of a cursor, as ratios
 * to a bare Hono route doing the same SELECT + COUNT with prepared statements (the database floor).
 * Servers are pinned to CPU 0; autocannon runs in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, type LoadResult } from './support/load.ts';
import { rssMiB, runCommand, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const SEARCH = 'department_id=7&work_order_type_group_id=2';
const BASE = '/v4_server/external/v1/maintenance';

/** A token when authentication is on (mrs key create exists), else no header. */
async function authHeaders(env: Record<string, string>, origin: string): Promise<Record<string, string>> {
  let key: string;
  try {
    key = (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], env)).trim();
  } catch {
    return {};
  }
  const res = await fetch(`${origin}/v4_server/external/v1/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`authenticate failed: ${JSON.stringify(body)}`);
  return { authorization: `Bearer ${body.access_token}` };
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-http-'));
  const port = 18080;
  const env = { DATA_DIR: dataDir, PORT: String(port), RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000', LOG_LEVEL: 'silent' };
  const origin = `http://127.0.0.1:${port}`;
  const stops: (() => void)[] = [];
  try {
    let server = await startProcess(['bin/mrs.js', 'serve'], env, `${origin}/healthz`);
    server.kill('SIGTERM');
    await new Promise((r) => server.on('exit', r));
    await runCommand(['bin/mrs.js', 'seed', 'demo.main', '--work-orders', '100000'], env);
    server = await startProcess(['bin/mrs.js', 'serve'], env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = await authHeaders(env, origin);
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/servers/baseline.ts', String(port + 1), join(dataDir, 'demo.main.sqlite')],
      {},
      `http://127.0.0.1:${port + 1}/bare`,
    );
    stops.push(() => baseline.kill('SIGTERM'));

    const first = await fetch(`${origin}${BASE}/work_orders?${SEARCH}`, { headers });
    if (first.status !== 200) throw new Error(`search answered ${first.status}: ${await first.text()}`);
    const total = Number(first.headers.get('x-total'));
    const cursor = first.headers.get('x-cursor');

    const results: [string, LoadResult, number][] = [];
    const measure = async (label: string, url: string, pid: number, h: Record<string, string> = {}) => {
      const r = await load(url, { headers: h });
      results.push([label, r, await rssMiB(pid)]);
      return r;
    };
    const bare = await measure('bare Hono, fixed array', `http://127.0.0.1:${port + 1}/bare`, baseline.pid!);
    const floor = await measure('bare Hono + prepared SELECT + COUNT (floor)', `http://127.0.0.1:${port + 1}/floor`, baseline.pid!);
    const search = await measure(`mrs new search (${total} matches, new cursor each)`, `${origin}${BASE}/work_orders?${SEARCH}`, server.pid!, headers);
    const page = await measure('mrs cursor page 3', `${origin}${BASE}/work_orders?$cursor=${cursor}&$page=3`, server.pid!, headers);

    console.log(
      table([
        ['case', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'RSS MiB', 'ratio to bare', 'ratio to floor'],
        ...results.map(([label, r, rss]) => [label, fmt(r.rps, 0), r.p50, r.p99, r.non2xx + r.errors, fmt(rss, 0), fmt(r.rps / bare.rps), fmt(r.rps / floor.rps)]),
      ]),
    );
    console.log(`new search / floor = ${fmt(search.rps / floor.rps)} (target >= 0.5); cursor page / floor = ${fmt(page.rps / floor.rps)}`);
  } finally {
    for (const stop of stops) stop();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
