/**
 * The HTTP hot paths, with authentication and rate limiting on, 100,000 work orders seeded by
 * `mrs seed`, as ratios to baselines measured beside them: bare Hono (a fixed array) and the
 * database floor (bare Hono + the same prepared SELECT + COUNT); creates and PATCHes also to
 * their write floor (servers/write-floors.ts); on PostgreSQL the new search also to the cursor
 * floor (the floor and a cursor's head row INSERTed: a server-side cursor's bound by design).
 * SQLite, and PostgreSQL too when TEST_DATABASE_URL
 * is set (floor through pg; BENCH_DATABASES picks). Servers are pinned to CPU 0; autocannon (this
 * process) is the load generator. Bare Hono's req/s swings by a third within a run, so a case
 * runs in BENCH_SLICES slices (default 3), each beside a slice of each of its baselines in
 * alternating order (support/sliced.ts); its ratio is the median over slices of case / adjacent
 * baseline, each slice's ratio printed too. BENCH_SECONDS (default 10) is a side's measured time,
 * split over its slices (whole seconds: autocannon counts by the second); each side warms up
 * once before, unmeasured (BENCH_WARMUP_SECONDS). Each side prints its server's CPU per request
 * (and PostgreSQL's), steadier than req/s here. The targets: floors no run may fall under.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { onEachDatabase, type BenchDatabase } from './support/databases.ts';
import { atRandomRecord } from './support/demo.ts';
import { SERVE, startProcess } from './support/processes.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { slicer, type LoadOptions, type Side } from './support/sliced.ts';
import { fmt, table } from './support/stats.ts';

const SEARCH = 'department_id=7&status=open'; // about 500 of 100,000
const BASE = '/v4_server/external/v1';
const M = `${BASE}/maintenance`;
const newWorkOrder = JSON.stringify({ department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1, priority: 2 });

/** Each database's floors, by ratio name: the least a run may show. */
const FLOORS: Record<BenchDatabase, Record<string, number>> = {
  sqlite: { 'new search / floor': 0.8, 'read by id / bare': 0.45, 'create / bare': 0.2, 'PATCH / bare': 0.14 },
  postgres: { 'new search / floor': 0.65, 'create / write floor': 0.5, 'PATCH / write floor': 0.5 },
};

async function measureDatabase(kind: BenchDatabase): Promise<void> {
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

    const slices = Math.max(1, Number(process.env.BENCH_SLICES ?? 3));
    const seconds = Math.max(1, Math.round(Number(process.env.BENCH_SECONDS ?? 10) / slices));
    const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
    const { compare, figures } = slicer({ slices, seconds, warmupSeconds, postgres: kind === 'postgres' });

    const engine = (name: string, label: string, path: string, opts: LoadOptions = { headers }): Side => ({
      name,
      label,
      url: `${origin}${M}${path}`,
      pid: server.pid!,
      opts,
    });
    const baselineAt = (name: string, label: string, path: string, opts?: LoadOptions): Side => ({
      name,
      label,
      url: `http://127.0.0.1:${port + 1}/${path}`,
      pid: baseline.pid!,
      opts,
    });
    const floorPath = kind === 'sqlite' ? 'floor' : 'floor-pg';
    const bare = baselineAt('bare', 'bare Hono, fixed array', 'bare');
    const floor = baselineAt(
      'floor',
      `floor: bare Hono + prepared SELECT + COUNT (${floorPath === 'floor' ? 'better-sqlite3' : 'pg'})`,
      floorPath,
    );
    const cursorFloor = baselineAt('cursor floor', 'cursor floor: the floor + a cursor head INSERT (pg)', 'floor-pg-cursor');
    const post = { requests: [{ method: 'POST' as const, body: newWorkOrder }] };
    // PATCHes spread over the seeded records: one hot row would measure its lock's waits.
    const patch = { requests: [{ method: 'PATCH' as const, body: '{"priority":3}', setupRequest: atRandomRecord(100_000) }] };
    const writeHeaders = { 'content-type': 'application/json' };
    const createFloor = baselineAt('write floor', 'write floor: create (bare Hono + INSERT + event)', `${floorPath}-create`, {
      headers: writeHeaders,
      ...post,
    });
    const patchFloor = baselineAt('write floor', 'write floor: PATCH (bare Hono + UPDATE + event)', `${floorPath}-patch/{id}`, {
      headers: writeHeaders,
      ...patch,
    });

    const comparisons = [
      ...(await compare(
        engine('new search', `new search (${total} matches, a cursor each)`, `/work_orders?${SEARCH}`),
        kind === 'sqlite' ? [floor] : [floor, cursorFloor],
      )),
      ...(await compare(engine('later page', 'later page of a cursor', `/work_orders?$cursor=${cursor}&$page=3`), [floor])),
      ...(await compare(engine('read by id', 'read by id', '/work_orders/12345'), [bare])),
      ...(await compare(engine('create', 'create', '/work_orders', { headers: json, ...post }), [bare, createFloor])),
      ...(await compare(engine('PATCH', 'PATCH (a random record each)', '/work_orders/{id}', { headers: json, ...patch }), [
        bare,
        patchFloor,
      ])),
    ];

    const pg = kind === 'postgres';
    console.log(`\n${kind}: ${slices} slices of ${seconds} s a side, after ${warmupSeconds} s of warm-up a side`);
    console.log(
      table([
        ['side', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MiB', 'CPU us/req', ...(pg ? ['PostgreSQL us/req'] : [])],
        ...figures().map((r) => [
          r.label,
          fmt(r.rps, 0),
          r.p50,
          r.p99,
          r.errors,
          fmt(r.rss, 0),
          fmt(r.cpu, 1),
          ...(pg ? [fmt(r.pg, 1)] : []),
        ]),
      ]),
    );
    console.log('req/s: mean of slices; p50, p99: median of slices; CPU per request over all slices');
    console.log(
      table([
        ['ratio of req/s', 'median', 'each slice', 'CPU us/req, case / baseline (same slices)'],
        ...comparisons.map((c) => [
          c.name,
          fmt(c.median),
          c.ratios.map((r) => fmt(r)).join(' '),
          `${fmt(c.cpu, 0)} / ${fmt(c.baselineCpu, 0)}`,
        ]),
      ]),
    );
    const ratio = (name: string) => comparisons.find((c) => c.name === name)!.median;
    console.log(
      table([
        ['target', 'ratio', 'at least', 'met'],
        ...Object.entries(FLOORS[kind]).map(([name, least]) => [name, fmt(ratio(name)), least, ratio(name) >= least ? 'yes' : 'no']),
      ]),
    );
  } finally {
    for (const stop of stops) stop();
    await new Promise((r) => setTimeout(r, 300));
    await demo.remove();
  }
}

export async function run(): Promise<void> {
  await onEachDatabase(measureDatabase);
}
