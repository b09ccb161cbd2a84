import { Kysely, sql, type LogEvent } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/create-engine.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { SERVER_MIGRATIONS } from '../../server/migrations/index.ts';
import { PoolerSafePostgresDialect } from '../../server/tenants/migration-lock.ts';
import { login } from '../support/auth.ts';
import { DEFAULTS } from '../support/changed-definitions.ts';
import { M, startHarness } from '../support/harness.ts';
import { freshPostgresDatabase, testPool, TEST_DATABASE_URL } from '../support/pg.ts';
import { schemaDump } from '../support/schema-dump.ts';

/**
 * Creating a PostgreSQL tenant costs the same with many tenants beside it: its migration reads
 * the catalog of its own schema only, and its tables are made in one transaction, so a creation
 * cut short leaves at most an empty schema, which the next creation completes. (PostgreSQL only:
 * a SQLite tenant is a file of its own, whose catalog holds nothing else.)
 */
describe.skipIf(!TEST_DATABASE_URL)('creating a PostgreSQL tenant', () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops.reverse()) await drop();
  });

  it("reads the catalog of the new tenant's schema only", async () => {
    const fresh = await freshPostgresDatabase();
    drops.push(fresh.drop);
    const queries: { sql: string; parameters: readonly unknown[] }[] = [];
    const log = (e: LogEvent) => void queries.push(e.query);
    const db = new Kysely<any>({ dialect: new PoolerSafePostgresDialect({ pool: testPool(fresh.url) }), log });
    drops.push(() => db.destroy());
    const engine = createEngine({
      resources: DEFAULTS,
      resolveCaller: async () => ({}) as never,
      migrations: { service: SERVER_MIGRATIONS },
    });
    await sql`create schema "other.main"`.execute(db);
    await engine.migrate(tenantDb(db, { key: 'other.main', schema: 'other.main' }));
    queries.length = 0;
    await sql`create schema "new.main"`.execute(db);
    await engine.migrate(tenantDb(db, { key: 'new.main', schema: 'new.main' }));
    const catalogReads = queries.filter((q) => /pg_catalog|information_schema|pg_indexes|pg_tables/i.test(q.sql));
    expect(catalogReads.length).toBeGreaterThan(0);
    expect(catalogReads.filter((q) => !q.parameters.includes('new.main')).map((q) => q.sql)).toEqual([]);
  });

  it('completes a tenant whose creation stopped after its schema, and refuses one made whole', async () => {
    const started = await startHarness('postgres', { resources: DEFAULTS });
    drops.push(() => started.stop());
    const { service } = started.harness;
    const direct = new Kysely<any>({ dialect: new PoolerSafePostgresDialect({ pool: testPool(started.databaseUrl!) }) });
    drops.push(() => direct.destroy());
    await sql`create schema "half.main"`.execute(direct);
    await service.tenants.create('half.main');
    const layout = async (tenant: string) => (await schemaDump(started, tenant)).replaceAll(tenant, '<tenant>');
    expect(await layout('half.main')).toEqual(await layout('demo.main'));
    await expect(service.tenants.create('half.main')).rejects.toThrow('tenant half.main already exists');
    const { token } = await login(service, { clientDb: 'half.main' });
    const r = await started.harness.request('GET', `${M}/work_orders`, { token });
    expect(r.status).toBe(200);
  });
});
