import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRegistry, type Registry } from '../../engine/registry.ts';
import { migrateTenant } from '../../engine/schema/index.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { loadResources } from '../../server/load-resources.ts';
import { sqliteTenants } from '../../server/tenants/sqlite.ts';
import { openPostgres } from '../../server/tenants/postgres.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { freshPostgresDatabase } from '../../test/support/pg.ts';

export type BenchDb = 'sqlite' | 'postgres';

/**
 * The databases a benchmark runs on: SQLite, and PostgreSQL when TEST_DATABASE_URL is set;
 * BENCH_DATABASES (e.g. `postgres`) keeps only the named ones.
 */
export function benchDatabases(): BenchDb[] {
  const all: BenchDb[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const only = process.env.BENCH_DATABASES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!only) return all;
  const unknown = only.filter((name) => !all.includes(name as BenchDb));
  if (unknown.length > 0)
    throw new Error(`BENCH_DATABASES: ${unknown.join(', ')} is not one of ${all.join(', ')} (PostgreSQL needs TEST_DATABASE_URL)`);
  return all.filter((name) => only.includes(name));
}

/** A fresh tenant database with `count` seeded work orders, analyzed; `drop()` removes it. */
export async function seededTenant(
  kind: BenchDb,
  count: number,
): Promise<{ tenant: TenantDb; registry: Registry; drop: () => Promise<void> }> {
  const registry = createRegistry(await loadResources());
  let tenant: TenantDb;
  let drop: () => Promise<void>;
  if (kind === 'sqlite') {
    // Opened as `mrs serve` opens a tenant file: its checkpoints run in a worker thread, not
    // inside the write that crosses SQLite's threshold.
    const dir = mkdtempSync(join(tmpdir(), 'mrs-bench-'));
    const store = sqliteTenants(dir, (t) => migrateTenant(t, registry));
    tenant = await store.create('bench.main');
    drop = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const fresh = await freshPostgresDatabase();
    const { db } = openPostgres(fresh.url);
    await db.schema.createSchema('bench.main').execute();
    tenant = tenantDb(db, { key: 'bench.main', schema: 'bench.main' });
    drop = async () => {
      await db.destroy();
      await fresh.drop();
    };
    await migrateTenant(tenant, registry);
  }
  const started = performance.now();
  let shown = 0;
  await seedWorkOrders(tenant, registry, count, (done) => {
    if (done - shown >= count / 10 || done === count) {
      shown = done;
      process.stderr.write(`  seeding ${kind}: ${done}/${count}\r`);
    }
  });
  process.stderr.write(`\n  seeded ${count} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  // The seed leaves its rows in SQLite's log, which the checkpoint worker then copies into the
  // file for seconds; measured meanwhile, a million-id snapshot swung 216-443 ms. A server
  // reaches this state once after a bulk load; the benchmarks measure the steady one after it.
  if (kind === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(tenant.db);
  return { tenant, registry, drop }; // seedWorkOrders ends with ANALYZE
}
