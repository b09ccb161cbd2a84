/**
 * An interleaved A/B of two checkouts of this project over HTTP, for judging one change on a
 * machine whose speed drifts: a fresh server of A, then of B, then B, then A (the order turns
 * each round), each on the same seeded data, pinned to CPU 0, with autocannon from this process;
 * prints each run's req/s, server CPU per request, PostgreSQL's processes' CPU per request (0
 * on SQLite), the whole machine's (PostgreSQL and the load included) and RSS, and the medians of
 * each side. CPU per request (Linux) is the steadier measure: req/s swings with the machine, and
 * one server process can run a few percent faster or slower than the next for no reason in the
 * code, hence a fresh one each run. Also prints each round's B/A and their median, which a slow
 * spell sways less.
 * A path with `{cursor}` gets a search's cursor first, as in bench/profile.ts. Not
 * part of `npm run bench` (it needs two trees).
 *
 *   node --import tsx bench/ab.ts <dirA> <dirB> [rounds=3] [path=/maintenance/work_orders/12345]
 *
 * A checkout for A: `git worktree add --detach /tmp/a <commit>`, then link each package of
 * node_modules into its own node_modules folder (not the folder itself: the compiled build's
 * cache lives there). BENCH_SECONDS sets each run's length (default 5), AB_CONNECTIONS the load's
 * concurrent connections (default 50; 1 measures a lone client's latency). POST and PATCH paths
 * take AB_METHOD and AB_BODY; AB_PORT sets the port (default 18390). AB_B_ENV (`NAME=value ...`)
 * adds settings to side B's server only: with one checkout for both sides, an A/B of a setting
 * (`AB_B_ENV='RATE_LIMIT_STORE=memory' ... bench/ab.ts . .`). AB_DATABASE=postgres
 * serves each side from a fresh PostgreSQL database (TEST_DATABASE_URL's server, dropped
 * afterwards) instead of SQLite; the server's CPU then leaves out PostgreSQL's, which has its
 * own column (every process named `postgres`, so run nothing else on it meanwhile). Each side
 * has a database of its own, created, migrated and seeded (the same deterministic rows) by its
 * own checkout, so a change that brings a migration is compared with the code before it.
 * AB_WRITES=N makes N creates through each side's own server first (events for
 * `/events?$after=...`, or dead versions left for a search to pass). AB_SETUP=`METHOD /path JSON`
 * (several separated by `;;`) makes those requests through each side's own server first:
 * records the load names (`AB_SETUP='POST /maintenance/service_requests {"description":"x"}'`,
 * then PATCHes linking work orders to service request 1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from './support/auth.ts';
import { bodyRequestsFromEnv, demoTenant, serveEnv, setupRequests, withCursor, writeEvents } from './support/demo.ts';
import { load } from './support/load.ts';
import { cpuMicros, machineBusyMicros, processesCpuMicros, rssMiB, runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';

const [dirA, dirB, roundsArg, pathArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: node --import tsx bench/ab.ts <dirA> <dirB> [rounds] [path]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const BASE = '/v4_server/external/v1';
const path = pathArg ?? '/maintenance/work_orders/12345';
const port = Number(process.env.AB_PORT ?? 18390); // AB_PORT: two A/Bs at once need two ports
const origin = `http://127.0.0.1:${port}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A side's own database (a SQLite folder, or a fresh PostgreSQL database), set up by its checkout. */
async function sideOf(dir: string, extra: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-ab-'));
  const pgdb = process.env.AB_DATABASE === 'postgres' ? await freshPostgresDatabase() : undefined;
  const env = { ...serveEnv(dataDir, port), DATABASE_URL: pgdb?.url ?? '', ...extra }; // empty: SQLite under DATA_DIR
  const drop = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await pgdb?.drop();
  };
  try {
    const key = await demoTenant((...args) => runCommand([join(dir, 'bin', 'mrs.js'), ...args], env));
    const serve = () => startProcess([...SERVE.slice(0, -2), join(dir, 'bin', 'mrs.js'), 'serve'], env, `${origin}/healthz`);
    await writeEvents(Number(process.env.AB_WRITES ?? 0), origin, key, serve);
    await setupRequests(process.env.AB_SETUP, origin, key, serve);
    return { dir, env, drop, key };
  } catch (e) {
    await drop();
    throw e;
  }
}

/** AB_B_ENV's settings (`NAME=value`, separated by spaces), for side B's server only. */
function settingsOf(list: string): Record<string, string> {
  const pairs = list
    .split(' ')
    .filter(Boolean)
    .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]);
  if (pairs.some(([name]) => !name)) throw new Error(`AB_B_ENV takes NAME=value pairs separated by spaces, not ${JSON.stringify(list)}`);
  return Object.fromEntries(pairs);
}

const made: Awaited<ReturnType<typeof sideOf>>[] = [];
try {
  for (const [dir, extra] of [
    [dirA, {}],
    [dirB, settingsOf(process.env.AB_B_ENV ?? '')],
  ] as const)
    made.push(await sideOf(dir, extra));
  const rows: (string | number)[][] = [['run', 'side', 'req/s', 'CPU us/req', 'PostgreSQL us/req', 'machine us/req', 'RSS MiB', 'not 2xx']];
  // Answers that were not 2xx (or failed): a side answering 404s or 422s is measuring those, not the write.
  let failed = 0;
  const results: Record<'A' | 'B', { rps: number[]; cpu: number[]; machine: number[]; postgres: number[] }> = {
    A: { rps: [], cpu: [], machine: [], postgres: [] },
    B: { rps: [], cpu: [], machine: [], postgres: [] },
  };
  const sides = [
    ['A', made[0]!],
    ['B', made[1]!],
  ] as const;
  for (let round = 1; round <= rounds; round++) {
    for (const [side, { dir, env, key }] of round % 2 ? sides : [...sides].reverse()) {
      const server = await startProcess([...SERVE.slice(0, -2), join(dir, 'bin', 'mrs.js'), 'serve'], env, `${origin}/healthz`);
      try {
        const opts = {
          headers: { ...(await bearer(origin, key)), 'content-type': 'application/json' },
          warmupSeconds: 0,
          connections: Number(process.env.AB_CONNECTIONS ?? 50),
          ...bodyRequestsFromEnv(),
        };
        const url = `${origin}${BASE}${await withCursor(origin, path, opts.headers)}`;
        await load(url, { ...opts, seconds: 2 }); // warm-up, outside the CPU count
        const [cpuBefore, machineBefore, pgBefore] = [
          await cpuMicros(server.pid!),
          await machineBusyMicros(),
          await processesCpuMicros('postgres'),
        ];
        const r = await load(url, { ...opts, seconds: Number(process.env.BENCH_SECONDS ?? 5) });
        const cpu = ((await cpuMicros(server.pid!)) - cpuBefore) / r.requests;
        const machine = ((await machineBusyMicros()) - machineBefore) / r.requests;
        const postgres = ((await processesCpuMicros('postgres')) - pgBefore) / r.requests;
        results[side].rps.push(r.rps);
        results[side].cpu.push(cpu);
        results[side].machine.push(machine);
        results[side].postgres.push(postgres);
        rows.push([
          round,
          side,
          fmt(r.rps, 0),
          fmt(cpu, 1),
          fmt(postgres, 1),
          fmt(machine, 1),
          fmt(await rssMiB(server.pid!), 0),
          r.non2xx + r.errors,
        ]);
        failed += r.non2xx + r.errors;
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  }
  console.log(table(rows));
  if (failed > 0) console.log(`warning: ${failed} answers were not 2xx (column "not 2xx"): the runs measured those too`);
  const [a, b] = [results.A, results.B];
  console.log(`medians: A ${fmt(median(a.rps), 0)} req/s, B ${fmt(median(b.rps), 0)} req/s, B/A ${fmt(median(b.rps) / median(a.rps))}`);
  console.log(`CPU per request: A ${fmt(median(a.cpu), 1)} us, B ${fmt(median(b.cpu), 1)} us, B/A ${fmt(median(b.cpu) / median(a.cpu))}`);
  if (process.env.AB_DATABASE === 'postgres')
    console.log(
      `PostgreSQL's CPU per request: A ${fmt(median(a.postgres), 1)} us, B ${fmt(median(b.postgres), 1)} us, B/A ${fmt(median(b.postgres) / median(a.postgres))}`,
    );
  console.log(
    `machine CPU per request: A ${fmt(median(a.machine), 1)} us, B ${fmt(median(b.machine), 1)} us, B/A ${fmt(median(b.machine) / median(a.machine))}`,
  );
  // A round's two runs are back to back, so they share what the machine was doing then: the
  // median of the rounds' own ratios leaves out a slow spell that the ratio of medians keeps
  // when it hit one side's runs more than the other's.
  const pairs = a.rps.map((x, i) => b.rps[i]! / x);
  console.log(
    `rounds' B/A: ${pairs.map((p) => fmt(p)).join(', ')}; median ${fmt(median(pairs))} (CPU ${fmt(median(a.cpu.map((x, i) => b.cpu[i]! / x)))})`,
  );
} finally {
  for (const side of made) await side.drop();
}
