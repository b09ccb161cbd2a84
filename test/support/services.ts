import { afterAll, beforeAll } from 'vitest';
import { startHarness, type DatabaseName, type Harness } from './harness.ts';

/**
 * Services on one database for the enclosing describe block: on PostgreSQL two, each with its own
 * pool of connections as two server processes have; on SQLite one (a file has one writer, in one
 * process, by design). The first made owns the database and drops it last.
 */
export function servicesOnOneDatabase(name: DatabaseName): () => Harness[] {
  const started: Awaited<ReturnType<typeof startHarness>>[] = [];
  beforeAll(async () => {
    started.push(await startHarness(name));
    if (name === 'postgres') started.push(await startHarness(name, { reuse: { databaseUrl: started[0]!.databaseUrl! } }));
  }, 60_000);
  afterAll(async () => {
    for (const s of [...started].reverse()) await s.stop(s !== started[0]);
  });
  return () => started.map((s) => s.harness);
}
