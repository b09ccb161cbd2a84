/**
 * One side of bench/ab-cpu.ts: the service of the checkout `dir` on fresh data, one case loaded
 * by 10 concurrent in-process callers; prints its CPU microseconds per request, last.
 */
import { cpuSide, type Case } from './cpu-cases.ts';

const [dir, what] = process.argv.slice(2) as [string, Case];
const side = await cpuSide(dir);
const one = side.cases[what];
for (let i = 0; i < 300; i++) await one();
const us = await side.load(one, Number(process.env.AB_REQUESTS ?? 4000));
await side.close();
console.log(Math.round(us));
process.exit(0);
