/** What the per-database benchmarks share: which databases to run on, and cleaning up after one. */

export type BenchDatabase = 'sqlite' | 'postgres';

/**
 * Runs `measure` on SQLite, then on PostgreSQL when TEST_DATABASE_URL is set; BENCH_DATABASES
 * (comma-separated, e.g. `postgres`) picks among them.
 */
export async function onEachDatabase(measure: (kind: BenchDatabase) => Promise<void>): Promise<void> {
  const wanted = (kind: BenchDatabase) => process.env.BENCH_DATABASES?.split(',').includes(kind) ?? true;
  if (wanted('sqlite')) await measure('sqlite');
  if (process.env.TEST_DATABASE_URL && wanted('postgres')) await measure('postgres');
}

/**
 * Runs `body` with a list to which it adds how to stop what it starts (servers), then stops
 * them, gives them a moment to exit, and removes the demo's data.
 */
export async function withCleanup(demo: { remove(): Promise<void> }, body: (stops: (() => void)[]) => Promise<void>): Promise<void> {
  const stops: (() => void)[] = [];
  try {
    await body(stops);
  } finally {
    for (const stop of stops) stop();
    await new Promise((r) => setTimeout(r, 300));
    await demo.remove();
  }
}
