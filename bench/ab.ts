/**
 * An interleaved A/B of two checkouts of this project over HTTP, for judging one change on a
 * machine whose speed drifts: the server of A, then of B, then A again..., each on the same
 * seeded data, pinned to CPU 0, with autocannon from this process; prints each run's median
 * req/s and RSS and the median of each side. Not part of `npm run bench` (it needs two trees).
 *
 *   node --import tsx bench/ab.ts <dirA> <dirB> [rounds=3] [path=/maintenance/work_orders/12345]
 *
 * A checkout for A: `git worktree add --detach /tmp/a <commit>`, then link each package of
 * node_modules into its own node_modules folder (not the folder itself: the compiled build's
 * cache lives there). BENCH_SECONDS sets each run's length (default 5). POST and PATCH paths
 * take AB_METHOD and AB_BODY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer } from './support/auth.ts';
import { bodyRequestsFromEnv, demoTenant, serveEnv } from './support/demo.ts';
import { load } from './support/load.ts';
import { rssMiB, runCommand, SERVE, startProcess } from './support/processes.ts';
import { fmt, table } from './support/stats.ts';

const [dirA, dirB, roundsArg, pathArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: node --import tsx bench/ab.ts <dirA> <dirB> [rounds] [path]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const BASE = '/v4_server/external/v1';
const path = pathArg ?? '/maintenance/work_orders/12345';
const port = 18390;
const origin = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'mrs-ab-'));
const env = serveEnv(dataDir, port);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const key = await demoTenant((...args) => runCommand([join(dirA, 'bin', 'mrs.js'), ...args], env));
  const rows: (string | number)[][] = [['run', 'side', 'req/s', 'RSS MiB']];
  const results: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [side, dir] of [['A', dirA], ['B', dirB]] as const) {
      const server = await startProcess([...SERVE.slice(0, -2), join(dir, 'bin', 'mrs.js'), 'serve'], env, `${origin}/healthz`);
      try {
        const r = await load(`${origin}${BASE}${path}`, {
          seconds: Number(process.env.BENCH_SECONDS ?? 5),
          headers: { ...(await bearer(origin, key)), 'content-type': 'application/json' },
          ...bodyRequestsFromEnv(),
        });
        results[side].push(r.rps);
        rows.push([round, side, fmt(r.rps, 0), fmt(await rssMiB(server.pid!), 0)]);
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  }
  console.log(table(rows));
  console.log(`medians: A ${fmt(median(results.A), 0)} req/s, B ${fmt(median(results.B), 0)} req/s, B/A ${fmt(median(results.B) / median(results.A))}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
