/**
 * PostgreSQL directly against PostgreSQL through PgBouncer (pool_mode = transaction),
 * as ratios measured in one run on 100,000 seeded work orders, for a new search, a later page
 * and a read by id:
 * - one process, direct, with and without named prepared statements (what PG_PREPARED_STATEMENTS
 *   buys, which chose its default);
 * - one process through PgBouncer (named statements off, as they must be);
 * - three processes through PgBouncer, the load split over them.
 * Needs TEST_DATABASE_URL and /usr/sbin/pgbouncer. No server is pinned: the three processes are
 * meant to share the cores. BENCH_SECONDS sets each run's length (default here 5), BENCH_ROUNDS
 * how many turns each setup takes per case (default 3), BENCH_PGBOUNCER_POOL PgBouncer's
 * default_pool_size (default 20, the README's).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../test/support/pg.ts';
import { freePort, pgbouncerAvailable, startPgBouncer } from '../test/support/pgbouncer.ts';
import { bearer } from './support/auth.ts';
import { demoTenant, serveEnv } from './support/demo.ts';
import { load, type LoadResult } from './support/load.ts';
import { runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const M = '/v4_server/external/v1/maintenance';
const SEARCH = 'department_id=7&status=open';
const CONNECTIONS = 48;

interface Setup {
  readonly label: string;
  readonly url: 'direct' | 'pgbouncer';
  readonly prepared: boolean;
  readonly processes: number;
}

const SETUPS: Setup[] = [
  { label: '1 process, direct, named statements', url: 'direct', prepared: true, processes: 1 },
  { label: '1 process, direct, unnamed', url: 'direct', prepared: false, processes: 1 },
  { label: '1 process, PgBouncer', url: 'pgbouncer', prepared: false, processes: 1 },
  { label: '3 processes, PgBouncer', url: 'pgbouncer', prepared: false, processes: 3 },
];

/** The same load split over the processes at once; the sum of their rates, the worst latencies. */
async function loadOver(origins: string[], path: string, headers: Record<string, string>[]): Promise<LoadResult> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const each = await Promise.all(
    origins.map((o, i) => load(`${o}${path}`, { headers: headers[i], seconds, connections: CONNECTIONS / origins.length })),
  );
  const sum = (f: (r: LoadResult) => number) => each.reduce((n, r) => n + f(r), 0);
  const max = (f: (r: LoadResult) => number) => Math.max(...each.map(f));
  return {
    rps: sum((r) => r.rps),
    requests: sum((r) => r.requests),
    p50: max((r) => r.p50),
    p99: max((r) => r.p99),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  if (!TEST_DATABASE_URL || !pgbouncerAvailable()) {
    console.log('skipped: needs TEST_DATABASE_URL and pgbouncer');
    return;
  }
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-pgbouncer-'));
  const pgdb = await freshPostgresDatabase();
  const poolSize = Number(process.env.BENCH_PGBOUNCER_POOL ?? 20);
  const bouncer = await startPgBouncer(pgdb.url, { poolSize, resetQuery: '' });
  const urls = { direct: pgdb.url, pgbouncer: bouncer.url };
  const base = (port: number) => ({ ...serveEnv(dataDir, port), DATABASE_URL: pgdb.url, JWT_SECRET: 'b'.repeat(40) });
  const running: ChildProcess[] = [];
  try {
    const apiKey = await demoTenant((...args) => runCommand(['bin/mrs.js', ...args], base(0)));
    // Every setup's processes run from the start (idle ones cost nothing); the setups then take
    // turns, a short run each, in a different order each round, and each figure is the median
    // of its rounds: the machine's drift spreads over all of them instead of favouring one.
    const started = [];
    for (const setup of SETUPS) {
      const origins: string[] = [];
      for (let i = 0; i < setup.processes; i++) {
        const port = await freePort();
        const env = { ...base(port), DATABASE_URL: urls[setup.url], PG_PREPARED_STATEMENTS: String(setup.prepared) };
        running.push(await startProcess(SERVE, env, `http://127.0.0.1:${port}/healthz`, false));
        origins.push(`http://127.0.0.1:${port}`);
      }
      const headers = await Promise.all(origins.map((o) => bearer(o, apiKey)));
      const first = await fetch(`${origins[0]}${M}/work_orders?${SEARCH}`, { headers: headers[0] });
      started.push({ setup, origins, headers, cursor: first.headers.get('x-cursor') });
    }
    const cases: [string, (cursor: string | null) => string][] = [
      ['new search', () => `${M}/work_orders?${SEARCH}`],
      ['later page', (cursor) => `${M}/work_orders?$cursor=${cursor}&$page=3`],
      ['read by id', () => `${M}/work_orders/12345`],
    ];
    const rows: (string | number)[][] = [];
    const rates = new Map<string, number>();
    for (const [name, path] of cases) {
      const runs = new Map<Setup, LoadResult[]>(SETUPS.map((s) => [s, []]));
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? started : [...started].reverse();
        for (const s of order) runs.get(s.setup)!.push(await loadOver(s.origins, path(s.cursor), s.headers));
      }
      for (const setup of SETUPS) {
        const r = runs.get(setup)!;
        const rps = median(r.map((x) => x.rps));
        rates.set(`${setup.label}|${name}`, rps);
        rows.push([
          setup.label,
          name,
          fmt(rps, 0),
          median(r.map((x) => x.p50)),
          median(r.map((x) => x.p99)),
          r.reduce((n, x) => n + x.errors + x.non2xx, 0),
        ]);
      }
    }
    console.log(
      `medians of ${rounds} rounds of ${process.env.BENCH_SECONDS ?? 5} s each, ${CONNECTIONS} connections, PgBouncer default_pool_size ${poolSize}`,
    );
    console.log(table([['setup', 'case', 'req/s', 'p50 ms', 'p99 ms', 'errors'], ...rows]));
    const ratio = (a: string, b: string, c: string) => fmt(rates.get(`${a}|${c}`)! / rates.get(`${b}|${c}`)!);
    const [named, unnamed, bounced, three] = SETUPS.map((s) => s.label) as [string, string, string, string];
    console.log(
      table([
        ['case', 'named / unnamed (direct)', 'PgBouncer / direct (unnamed)', 'PgBouncer / direct (named)', '3 processes / 1 (PgBouncer)'],
        ...cases.map(([c]) => [
          c,
          ratio(named, unnamed, c),
          ratio(bounced, unnamed, c),
          ratio(bounced, named, c),
          ratio(three, bounced, c),
        ]),
      ]),
    );
  } finally {
    for (const p of running) p.kill('SIGTERM');
    await Promise.all(running.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('exit', r)))));
    await bouncer.stop();
    await pgdb.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
