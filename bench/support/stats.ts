/** Small timing helpers for benchmarks: medians over repeated runs, never assertions. */

export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Medians of two operations run in turns (a, b, a, b, ...): a ratio of the two is not skewed by
 * the machine speeding up or slowing down between one block of runs and the next.
 */
export async function interleavedMedianMs(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  await a();
  await b();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t = performance.now();
      await fn();
      times[k]!.push(performance.now() - t);
    }
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [median(times[0]), median(times[1])];
}

export const fmt = (n: number, digits = 2) => n.toFixed(digits);

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => '| ' + r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ') + ' |').join('\n');
}
