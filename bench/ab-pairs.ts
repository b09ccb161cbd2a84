/**
 * An A/B of two checkouts by CPU per request in one process: both sides' services
 * (bench/support/cpu-cases.ts) answer `app.request` calls side by side, in pairs of batches
 * (A then B, then B then A, ...), so a change of the machine's speed between runs, which
 * bench/ab-cpu.ts's fresh processes each meet alone, hits both sides of a pair alike. Reports
 * the median of the pairs' B/A, its quartiles, and how many pairs B won: small effects show here
 * that ab-cpu's medians of a few runs cannot tell from the machine's noise. Not part of `npm run bench`.
 *
 *   node --import tsx bench/ab-pairs.ts <dirA> <dirB> <create|patch|read|search|page> [pairs=20] [requests=1000]
 *
 * AB_DATABASE=postgres serves each side from a fresh database of TEST_DATABASE_URL's server. The
 * two checkouts share the packages of node_modules they both resolve to (one module instance).
 */
import { CASES, cpuSide, type Case } from './support/cpu-cases.ts';

const [dirA, dirB, caseArg, pairsArg, requestsArg] = process.argv.slice(2);
if (!dirA || !dirB || !CASES.includes(caseArg as Case)) {
  console.error(`usage: node --import tsx bench/ab-pairs.ts <dirA> <dirB> <${CASES.join('|')}> [pairs=20] [requests=1000]`);
  process.exit(2);
}
const what = caseArg as Case;
const pairs = Number(pairsArg ?? 20);
const requests = Number(requestsArg ?? 1000);
const a = await cpuSide(dirA);
const b = await cpuSide(dirB);
await a.load(a.cases[what], 300);
await b.load(b.cases[what], 300);

const quantile = (xs: number[], q: number) => [...xs].sort((x, y) => x - y)[Math.round(q * (xs.length - 1))]!;
const as: number[] = [];
const bs: number[] = [];
const ratios: number[] = [];
for (let pair = 0; pair < pairs; pair++) {
  let ua: number, ub: number;
  if (pair % 2 === 0) {
    ua = await a.load(a.cases[what], requests);
    ub = await b.load(b.cases[what], requests);
  } else {
    ub = await b.load(b.cases[what], requests);
    ua = await a.load(a.cases[what], requests);
  }
  as.push(ua);
  bs.push(ub);
  ratios.push(ub / ua);
}
await a.close();
await b.close();
const us = (x: number) => x.toFixed(1);
console.log(
  `${what} on ${process.env.AB_DATABASE ?? 'sqlite'}, ${pairs} pairs of ${requests}: CPU per request, median A ${us(quantile(as, 0.5))} us, ` +
    `B ${us(quantile(bs, 0.5))} us; B/A median ${quantile(ratios, 0.5).toFixed(3)} (quartiles ${quantile(ratios, 0.25).toFixed(3)}-` +
    `${quantile(ratios, 0.75).toFixed(3)}), B lower in ${ratios.filter((r) => r < 1).length} of ${pairs}`,
);
process.exit(0);
