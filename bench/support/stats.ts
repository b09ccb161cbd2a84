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

export const fmt = (n: number, digits = 2) => n.toFixed(digits);

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => '| ' + r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ') + ' |').join('\n');
}
