/**
 * The HTTP hot paths, with authentication and rate limiting on, 100,000 work
 * orders seeded by `mrs seed`, as ratios to two baselines of the same run: bare Hono (a fixed
 * array) and the database floor (bare Hono + the same prepared SELECT + COUNT); creates and
 * PATCHes also to their write floor (servers/write-floors.ts). SQLite, and PostgreSQL
 * too when TEST_DATABASE_URL is set (floor through pg; BENCH_DATABASES picks). Servers are
 * pinned to CPU 0; autocannon (this process) is the load generator. BENCH_SECONDS sets each
 * run's length. Each case prints its server's CPU per request (and PostgreSQL's), steadier than
 * req/s here. The baselines run before and after the engine's cases; ratios use their mean
 * (the machine drifts).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { onEachDatabase } from './support/databases.ts';
import { atRandomRecord } from './support/demo.ts';
import { load, type LoadResult } from './support/load.ts';
import { cpuMicros, processesCpuMicros, rssMiB, SERVE, startProcess } from './support/processes.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { fmt, table } from './support/stats.ts';

const SEARCH = 'department_id=7&status=open'; // about 500 of 100,000
const BASE = '/v4_server/external/v1';
const M = `${BASE}/maintenance`;
const newWorkOrder = JSON.stringify({ department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1, priority: 2 });

async function measureDatabase(kind: 'sqlite' | 'postgres'): Promise<void> {
  const port = kind === 'sqlite' ? 18080 : 18180;
  // The baselines read a SQLite file: on PostgreSQL runs it is seeded too, for /bare and /floor.
  const demo = await seededDemo(kind, port, 'seeded');
  const { env, origin, sqliteFile } = demo;
  const stops: (() => void)[] = [];
  try {
    // The writes' floor writes a copy of the seeded file (the engine writes the seeded one).
    const writeFile = join(env.DATA_DIR!, 'write-floor.sqlite');
    if (kind === 'sqlite') {
      const seeded = new Database(sqliteFile, { readonly: true });
      seeded.exec(`vacuum into '${writeFile}'`);
      seeded.close();
    }
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = await demo.adminHeaders();
    const json = { ...headers, 'content-type': 'application/json' };
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/servers/baseline.ts', String(port + 1), sqliteFile],
      {
        BASELINE_WHERE: "department_id = 7 and status = 'open' and deleted = 0",
        ...demo.baselineEnv,
        ...(kind === 'sqlite' ? { BASELINE_WRITE_FILE: writeFile } : {}),
      },
      `http://127.0.0.1:${port + 1}/bare`,
    );
    stops.push(() => baseline.kill('SIGTERM'));

    const first = await fetch(`${origin}${M}/work_orders?${SEARCH}`, { headers });
    if (first.status !== 200) throw new Error(`search answered ${first.status}: ${await first.text()}`);
    const total = Number(first.headers.get('x-total'));
    const cursor = first.headers.get('x-cursor');

    // Each case's server CPU per request (and PostgreSQL's on its runs) beside its req/s: the
    // steadier of the two on a machine whose speed drifts. Warmed up first, unmeasured, so the
    // CPU read counts the measured requests only.
    const results: [string, LoadResult & { cpu: number; pg: number }, number][] = [];
    const measure = async (label: string, url: string, pid: number, opts: Parameters<typeof load>[1] = {}) => {
      const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
      if (warmup > 0) await load(url, { ...opts, seconds: warmup, warmupSeconds: 0 });
      const [cpu0, pg0] = [await cpuMicros(pid), kind === 'postgres' ? await processesCpuMicros('postgres') : 0];
      const r = await load(url, { ...opts, warmupSeconds: 0 });
      const [cpu1, pg1] = [await cpuMicros(pid), kind === 'postgres' ? await processesCpuMicros('postgres') : 0];
      const measured = { ...r, cpu: (cpu1 - cpu0) / r.requests, pg: (pg1 - pg0) / r.requests };
      results.push([label, measured, await rssMiB(pid)]);
      return measured;
    };
    // The machine's speed drifts during a run: each baseline is measured before and after the
    // engine's cases, and the ratios use the mean of the two.
    const bareUrl = `http://127.0.0.1:${port + 1}/bare`;
    const floorUrl = `http://127.0.0.1:${port + 1}/${kind === 'sqlite' ? 'floor' : 'floor-pg'}`;
    const floorLabel = `floor: bare Hono + prepared SELECT + COUNT (${kind === 'sqlite' ? 'better-sqlite3' : 'pg'})`;
    const bare1 = await measure('bare Hono, fixed array (before)', bareUrl, baseline.pid!);
    const floor1 = await measure(`${floorLabel} (before)`, floorUrl, baseline.pid!);
    const search = await measure(`new search (${total} matches, a cursor each)`, `${origin}${M}/work_orders?${SEARCH}`, server.pid!, {
      headers,
    });
    const page = await measure('later page of a cursor', `${origin}${M}/work_orders?$cursor=${cursor}&$page=3`, server.pid!, { headers });
    const read = await measure('read by id', `${origin}${M}/work_orders/12345`, server.pid!, { headers });
    const create = await measure('create', `${origin}${M}/work_orders`, server.pid!, {
      headers: json,
      requests: [{ method: 'POST', body: newWorkOrder }],
    });
    // PATCHes spread over the seeded records: one hot row would measure its lock's waits.
    const patchOf = {
      headers: json,
      requests: [{ method: 'PATCH' as const, body: '{"priority":3}', setupRequest: atRandomRecord(100_000) }],
    };
    const patch = await measure('PATCH (a random record each)', `${origin}${M}/work_orders/{id}`, server.pid!, patchOf);
    const floorWrites = `http://127.0.0.1:${port + 1}/${kind === 'sqlite' ? 'floor' : 'floor-pg'}`;
    const createFloor = await measure('write floor: create (bare Hono + INSERT + event)', `${floorWrites}-create`, baseline.pid!, {
      headers: { 'content-type': 'application/json' },
      requests: [{ method: 'POST', body: newWorkOrder }],
    });
    const patchFloor = await measure('write floor: PATCH (bare Hono + UPDATE + event)', `${floorWrites}-patch/{id}`, baseline.pid!, {
      ...patchOf,
      headers: { 'content-type': 'application/json' },
    });
    const bare2 = await measure('bare Hono, fixed array (after)', bareUrl, baseline.pid!);
    const floor2 = await measure(`${floorLabel} (after)`, floorUrl, baseline.pid!);
    const bare = { rps: (bare1.rps + bare2.rps) / 2 };
    const floor = { rps: (floor1.rps + floor2.rps) / 2 };

    console.log(`\n${kind}`);
    console.log(
      table([
        [
          'case',
          'req/s',
          'p50 ms',
          'p99 ms',
          'errors',
          'RSS MiB',
          'CPU us/req',
          ...(kind === 'postgres' ? ['PostgreSQL us/req'] : []),
          'ratio to bare',
          'ratio to floor',
        ],
        ...results.map(([label, r, rss]) => [
          label,
          fmt(r.rps, 0),
          r.p50,
          r.p99,
          r.non2xx + r.errors,
          fmt(rss, 0),
          fmt(r.cpu, 1),
          ...(kind === 'postgres' ? [fmt(r.pg, 1)] : []),
          fmt(r.rps / bare.rps),
          fmt(r.rps / floor.rps),
        ]),
      ]),
    );
    console.log(`baselines for the ratios (mean of before and after): bare ${fmt(bare.rps, 0)} req/s, floor ${fmt(floor.rps, 0)} req/s`);
    console.log(
      `writes to their floor: create ${fmt(create.rps / createFloor.rps)}, PATCH ${fmt(patch.rps / patchFloor.rps)} (req/s); ` +
        `server CPU per request ${fmt(create.cpu / createFloor.cpu)} and ${fmt(patch.cpu / patchFloor.cpu)} times the floor's` +
        (kind === 'postgres' ? `, PostgreSQL's ${fmt(create.pg / createFloor.pg)} and ${fmt(patch.pg / patchFloor.pg)}` : ''),
    );
    const targets: [string, number, number][] =
      kind === 'sqlite'
        ? [
            ['new search / floor', search.rps / floor.rps, 0.5],
            ['cursor page / floor', page.rps / floor.rps, 1.0],
            ['read by id / bare', read.rps / bare.rps, 0.4],
            ['create / bare', create.rps / bare.rps, 0.2],
            ['PATCH / bare', patch.rps / bare.rps, 0.2],
          ]
        : [['new search / floor (pg)', search.rps / floor.rps, 0.5]];
    console.log(table([['target', 'ratio', 'at least', 'met'], ...targets.map(([n, r, t]) => [n, fmt(r), t, r >= t ? 'yes' : 'no'])]));
  } finally {
    for (const stop of stops) stop();
    await new Promise((r) => setTimeout(r, 300));
    await demo.remove();
  }
}

export async function run(): Promise<void> {
  await onEachDatabase(measureDatabase);
}
