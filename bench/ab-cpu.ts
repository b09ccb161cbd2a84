/**
 * An A/B of two checkouts by the service's own CPU per request, in process: each side's service
 * (its checkout's `createService`) answers `app.request` calls from 10 concurrent callers, no
 * socket and no load generator, so what is measured is the engine's and the service's work per
 * request (on PostgreSQL, without the database's own). Steadier than bench/ab.ts's req/s on a
 * machine others load, and blind to what only HTTP shows (the socket, the body's transfer).
 * Sides alternate A, B, B, A ... each in a fresh process on fresh data. Not part of `npm run bench`.
 *
 *   node --import tsx bench/ab-cpu.ts <dirA> <dirB> <create|patch|read|search|page> [rounds=3]
 *
 * AB_DATABASE=postgres serves each run from a fresh database of TEST_DATABASE_URL's server;
 * AB_REQUESTS sets each run's measured requests (default 4,000, after 300 unmeasured).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CASES, type Case } from './support/cpu-cases.ts';

const [dirA, dirB, caseArg, roundsArg] = process.argv.slice(2);
if (!dirA || !dirB || !CASES.includes(caseArg as Case)) {
  console.error(`usage: node --import tsx bench/ab-cpu.ts <dirA> <dirB> <${CASES.join('|')}> [rounds=3]`);
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const side = fileURLToPath(new URL('./support/cpu-side.ts', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One run of a side in its own process: its CPU microseconds per request. */
function run(dir: string): number {
  const child = spawnSync(process.execPath, ['--import', 'tsx', side, dir, caseArg!], { cwd: dir, encoding: 'utf8', env: process.env });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !/^\d+$/.test(line)) throw new Error(`${dir}: ${child.stderr || child.stdout}`);
  return Number(line);
}

const a: number[] = [];
const b: number[] = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ([a, dirA, b, dirB] as const) : ([b, dirB, a, dirA] as const);
  order[0].push(run(order[1]));
  order[2].push(run(order[3]));
  console.log(`round ${round + 1}: A ${a.at(-1)} us, B ${b.at(-1)} us`);
}
console.log(
  `${caseArg} on ${process.env.AB_DATABASE ?? 'sqlite'}: CPU per request, median A ${median(a)} us, B ${median(b)} us, B/A ${(median(b) / median(a)).toFixed(2)}`,
);
