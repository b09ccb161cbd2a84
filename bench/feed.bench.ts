/**
 * Reading the change feed: `GET {base}/events?$after=N&$limit=100` against its
 * database floor (bare Hono with a prepared SELECT of the same 100 events, answered as JSON) in
 * the same run, on SQLite and (with TEST_DATABASE_URL) PostgreSQL. The feed is filled first with
 * creates and PATCHes through the server. Servers are pinned to CPU 0; BENCH_SECONDS sets each
 * run's length. The floor runs before and after the engine; the ratio uses their mean.
 */
import { load } from './support/load.ts';
import { cpuMicros, SERVE, startProcess } from './support/processes.ts';
import { onEachDatabase, withCleanup, type BenchDatabase } from './support/databases.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { fmt, table } from './support/stats.ts';

const BASE = '/v4_server/external/v1';
const WRITES = 3000;
const AFTER = 1000;

type Kind = BenchDatabase;

async function measureDatabase(kind: Kind): Promise<void> {
  const port = kind === 'sqlite' ? 18840 : 18940;
  const demo = await seededDemo(kind, port, 'tables');
  const { env, origin, sqliteFile } = demo;
  await withCleanup(demo, async (stops) => {
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = { ...(await demo.adminHeaders()), 'content-type': 'application/json' };
    // Events to read: creates, and PATCHes of what was created, 50 at a time.
    for (let i = 0; i < WRITES; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const r = await fetch(`${origin}${BASE}/maintenance/work_orders`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              department_id: 1 + ((i + j) % 9),
              work_order_type_id: 2,
              work_order_type_group_id: 3,
              description: `feed ${i + j}`,
            }),
          });
          if (r.status !== 201) throw new Error(`create answered ${r.status}: ${await r.text()}`);
          const { id } = (await r.json()) as { id: number };
          const p = await fetch(`${origin}${BASE}/maintenance/work_orders/${id}`, {
            method: 'PATCH',
            headers,
            body: JSON.stringify({ priority: j % 5 }),
          });
          if (p.status !== 200) throw new Error(`PATCH answered ${p.status}: ${await p.text()}`);
        }),
      );
    }
    const url = `${origin}${BASE}/events?$after=${AFTER}&$limit=100`;
    const first = await fetch(url, { headers });
    const page = (await first.json()) as { seq: number }[];
    if (first.status !== 200 || page.length !== 100) throw new Error(`the feed answered ${first.status} with ${page.length} events`);
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/servers/baseline.ts', String(port + 1), sqliteFile],
      demo.baselineEnv,
      `http://127.0.0.1:${port + 1}/bare`,
    );
    stops.push(() => baseline.kill('SIGTERM'));
    const floorUrl = `http://127.0.0.1:${port + 1}/${kind === 'sqlite' ? 'floor-events' : 'floor-pg-events'}?after=${AFTER}`;
    const check = (await (await fetch(floorUrl)).json()) as { seq: number }[];
    if (check.length !== 100 || Number(check[0]!.seq) !== page[0]!.seq)
      throw new Error(`the floor read ${check.length} events from ${check[0]?.seq}, the feed from ${page[0]!.seq}`);
    // Each load with its server's CPU time per request (the steadier measure on a shared machine).
    // A warm-up load first, outside the CPU count.
    const measured = async (pid: number, target: string, h?: Record<string, string>) => {
      await load(target, { headers: h, seconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2), warmupSeconds: 0 });
      const before = await cpuMicros(pid);
      const r = await load(target, { headers: h, warmupSeconds: 0 });
      return Object.assign(r, { cpu: ((await cpuMicros(pid)) - before) / Math.max(1, r.requests) });
    };
    const floor1 = await measured(baseline.pid!, floorUrl);
    const engine = await measured(server.pid!, url, headers);
    const floor2 = await measured(baseline.pid!, floorUrl);
    const floor = (floor1.rps + floor2.rps) / 2;
    const ratio = engine.rps / floor;
    console.log(`\n${kind}: GET /events?$after=${AFTER}&$limit=100 against its floor (a prepared SELECT of the same 100 events as JSON)`);
    console.log(
      table([
        ['case', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'server CPU us/request'],
        ['floor (before)', fmt(floor1.rps, 0), floor1.p50, floor1.p99, floor1.non2xx + floor1.errors, fmt(floor1.cpu, 1)],
        ['engine', fmt(engine.rps, 0), engine.p50, engine.p99, engine.non2xx + engine.errors, fmt(engine.cpu, 1)],
        ['floor (after)', fmt(floor2.rps, 0), floor2.p50, floor2.p99, floor2.non2xx + floor2.errors, fmt(floor2.cpu, 1)],
      ]),
    );
    console.log(
      table([
        ['target', 'ratio', 'at least', 'met'],
        ['events page / floor', fmt(ratio), 0.5, ratio >= 0.5 ? 'yes' : 'no'],
      ]),
    );
  });
}

export const run = (): Promise<void> => onEachDatabase(measureDatabase);
