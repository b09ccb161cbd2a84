/**
 * A CPU profile of `mrs serve` under load on one path, for finding where a request's time goes
 * (the costs found with a profiler, not guessed). Seeds 100,000 work orders, starts the server as
 * `npm start` does plus `--cpu-prof`, loads the path with autocannon, stops the server, and
 * prints the functions with the most self time. Not part of `npm run bench`.
 *
 *   node --import tsx bench/profile.ts [path=/maintenance/work_orders/12345] [rows=25]
 *
 * A path with `{cursor}` gets the X-Cursor of a search made first (CURSOR_SEARCH, default
 * `department_id=7&status=open`, the HTTP benchmark's), e.g. `'/maintenance/work_orders?$cursor={cursor}&$page=3'`.
 * PROFILE_DATABASE=postgres serves from a fresh PostgreSQL database (TEST_DATABASE_URL's server,
 * dropped afterwards) instead of SQLite. PROFILE_DIR keeps the .cpuprofile (for Chrome's DevTools); BENCH_SECONDS sets the load's
 * length (default 8); POST and PATCH paths take AB_METHOD and AB_BODY as bench/ab.ts does
 * (AB_IDEMPOTENCY_KEYS=true: a new Idempotency-Key with each request). PROFILE_WRITES=N makes N
 * creates through the server before the load (events for `/events?$after=...`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from './support/auth.ts';
import { bodyRequestsFromEnv, demoTenant, serveEnv, withCursor, writeEvents } from './support/demo.ts';
import { load } from './support/load.ts';
import { runCommand, SERVE, startProcess } from './support/processes.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';

const [pathArg, rowsArg] = process.argv.slice(2);
const path = pathArg ?? '/maintenance/work_orders/12345';
const BASE = '/v4_server/external/v1';
const port = Number(process.env.PROFILE_PORT ?? 18391); // PROFILE_PORT: beside another profile or bench
const origin = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'mrs-profile-'));
const profileDir = process.env.PROFILE_DIR ?? join(dataDir, 'profile');
const pgdb = process.env.PROFILE_DATABASE === 'postgres' ? await freshPostgresDatabase() : undefined;
const env = { ...serveEnv(dataDir, port), DATABASE_URL: pgdb?.url ?? '' }; // empty: SQLite under DATA_DIR

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function (name, file, line), largest first. */
function selfTimes(profile: Profile): { total: number; rows: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return { total, rows: [...self].sort((a, b) => b[1] - a[1]) };
}

try {
  const key = await demoTenant((...args) => runCommand(['bin/mrs.js', ...args], env));
  // PROFILE_WRITES: that many creates through a server of their own first (events to read).
  await writeEvents(Number(process.env.PROFILE_WRITES ?? 0), origin, key, () => startProcess(SERVE, env, `${origin}/healthz`));
  const server = await startProcess(['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...SERVE], env, `${origin}/healthz`);
  const headers = { ...(await bearer(origin, key)), 'content-type': 'application/json' };
  const target = await withCursor(origin, path, headers);
  const r = await load(`${origin}${BASE}${target}`, { seconds: Number(process.env.BENCH_SECONDS ?? 8), headers, ...bodyRequestsFromEnv() });
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${profileDir}`);
  const { total, rows } = selfTimes(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Profile);
  console.log(`${path}: ${Math.round(r.rps)} req/s under the profiler; ${(total / 1e6).toFixed(1)} s sampled`);
  for (const [name, us] of rows.slice(0, Number(rowsArg ?? 25))) console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
  if (process.env.PROFILE_DIR) console.log(`profile: ${join(profileDir, file)}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await pgdb?.drop();
}
