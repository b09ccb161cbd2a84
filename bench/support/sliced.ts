/**
 * A case measured against its baselines in short slices taken side by side: slice i runs the case
 * next to a slice of each baseline, the order alternating (baseline, case, case, baseline, ...; with
 * two baselines the case sits between them, which side first alternating), so the machine's drift
 * hits both sides of a ratio alike. A ratio is the median over slices of case / adjacent baseline.
 */
import { load, type LoadResult } from './load.ts';
import { cpuMicros, processesCpuMicros, rssMiB } from './processes.ts';

export type LoadOptions = NonNullable<Parameters<typeof load>[1]>;

/** One server and one request shape to load it with. */
export interface Side {
  /** Short, in a ratio's name ("create / write floor"). */
  readonly name: string;
  /** Long, in the table of sides; the name when absent. */
  readonly label?: string;
  readonly url: string;
  readonly pid: number;
  readonly opts?: LoadOptions;
}

/** One slice of a side: its load's figures, its server's CPU and PostgreSQL's in microseconds. */
interface Slice extends LoadResult {
  cpu: number;
  pg: number;
}

/** A case against one baseline: each slice's req/s ratio, and CPU per request over those slices. */
export interface Comparison {
  readonly name: string;
  readonly ratios: number[];
  readonly median: number;
  readonly cpu: number;
  readonly baselineCpu: number;
}

/** A side over all its slices: req/s their mean, p50 and p99 their medians, errors their sum. */
export interface SideFigures {
  readonly label: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly rss: number;
  readonly cpu: number;
  readonly pg: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const sum = (slices: Slice[], key: 'cpu' | 'pg' | 'requests' | 'rps') => slices.reduce((n, s) => n + s[key], 0);
const perRequest = (slices: Slice[], key: 'cpu' | 'pg') => sum(slices, key) / Math.max(1, sum(slices, 'requests'));

export function slicer(opts: { slices: number; seconds: number; warmupSeconds: number; postgres: boolean }) {
  const bySide = new Map<Side, Slice[]>();
  const rss = new Map<Side, number>();

  async function run(side: Side): Promise<Slice> {
    // Once per side, unmeasured: a fresh case's first second runs unoptimized code.
    if (!bySide.has(side)) {
      bySide.set(side, []);
      if (opts.warmupSeconds > 0) await load(side.url, { ...side.opts, seconds: opts.warmupSeconds, warmupSeconds: 0 });
    }
    const pgNow = () => (opts.postgres ? processesCpuMicros('postgres') : Promise.resolve(0));
    const [cpu0, pg0] = [await cpuMicros(side.pid), await pgNow()];
    const r = await load(side.url, { ...side.opts, seconds: opts.seconds, warmupSeconds: 0 });
    const slice = { ...r, cpu: (await cpuMicros(side.pid)) - cpu0, pg: (await pgNow()) - pg0 };
    bySide.get(side)!.push(slice);
    rss.set(side, await rssMiB(side.pid));
    return slice;
  }

  /** The case in `opts.slices` slices, each beside a slice of every baseline (one or two). */
  async function compare(subject: Side, baselines: Side[]): Promise<Comparison[]> {
    const taken = baselines.map(() => [] as Slice[]);
    const own: Slice[] = [];
    for (let i = 0; i < opts.slices; i++) {
      // Even slices: the first baseline, the case, the second; odd slices their mirror image.
      const keys = [...baselines.keys()];
      const [before, after] = i % 2 ? [keys.slice(1).reverse(), [0]] : [[0], keys.slice(1)];
      for (const k of before) taken[k]!.push(await run(baselines[k]!));
      own.push(await run(subject));
      for (const k of after) taken[k]!.push(await run(baselines[k]!));
    }
    return baselines.map((b, k) => {
      const ratios = own.map((s, i) => s.rps / taken[k]![i]!.rps);
      return {
        name: `${subject.name} / ${b.name}`,
        ratios,
        median: median(ratios),
        cpu: perRequest(own, 'cpu'),
        baselineCpu: perRequest(taken[k]!, 'cpu'),
      };
    });
  }

  function figures(): SideFigures[] {
    return [...bySide].map(([side, slices]) => ({
      label: side.label ?? side.name,
      rps: sum(slices, 'rps') / slices.length,
      p50: median(slices.map((s) => s.p50)),
      p99: median(slices.map((s) => s.p99)),
      errors: slices.reduce((n, s) => n + s.errors + s.non2xx, 0),
      rss: rss.get(side) ?? 0,
      cpu: perRequest(slices, 'cpu'),
      pg: perRequest(slices, 'pg'),
    }));
  }

  return { compare, figures };
}
