import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import type { MigrationStep } from '../../engine/schema/index.ts';
import { migrateTenants } from '../../server/migrate-tenants.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { loadConfig } from '../../server/config.ts';
import { createService } from '../../server/service.ts';
import { DEFAULTS, withWorkOrderFields, fillSite, type Definitions } from '../support/changed-definitions.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DATABASES, M, makeHarness, startHarness, type DatabaseName, type Harness, type Reply } from '../support/harness.ts';

/** The next release: description renamed to summary, a required site filled by a step, a new nullable field. */
const NEXT = withWorkOrderFields({
  description: undefined,
  summary: string({ nullable: true, renamedFrom: 'description' }),
  site: string({ required: true }),
  shift: string({ nullable: true }),
});
/** Only added: a nullable field and an index on it. */
const ADDED = withWorkOrderFields({ shift: string({ nullable: true, filterable: true }) }, [
  ['department_id', 'status'],
  ['shift', 'status'],
]);

type Started = Awaited<ReturnType<typeof startHarness>>;

/** Three services on the old definitions, on one set of data with rows (each its own pools, as three processes would have). */
async function oldFleet(db: DatabaseName): Promise<{ servers: Harness[]; first: Started; all: Started[] }> {
  const first = await startHarness(db, { resources: DEFAULTS, steps: [] });
  const t = (await first.harness.service.tenants.get('demo.main'))!;
  await seedWorkOrders(t, first.harness.service.engine.registry, 300);
  const reuse = { dataDir: first.dataDir, databaseUrl: first.databaseUrl };
  const more = [
    await startHarness(db, { resources: DEFAULTS, steps: [], reuse }),
    await startHarness(db, { resources: DEFAULTS, steps: [], reuse }),
  ];
  const all = [first, ...more];
  return { servers: all.map((s) => makeHarness(db, s.harness.service, first.harness.token)), first, all };
}

/** `mrs migrate` as the deploy runs it (every tenant planned, then migrated), on the new definitions; then a server on them. */
async function migrateTo(first: Started, db: DatabaseName, resources: Definitions, steps: MigrationStep[]): Promise<Started> {
  const reuse = { dataDir: first.dataDir, databaseUrl: first.databaseUrl };
  // In one process SQLite's busy wait blocks the event loop, so the servers here cannot commit the
  // group holding the write lock: opening the file may give up with "database is locked". As its own
  // process (the deploy's `mrs migrate`, a new server) it would wait; a failed run changes nothing.
  for (let attempt = 1; ; attempt++) {
    try {
      const migrate = await createService(loadConfig({ DATA_DIR: reuse.dataDir, DATABASE_URL: reuse.databaseUrl }), {
        resources,
        steps,
        migrateOnOpen: false,
      });
      try {
        expect(await migrateTenants(migrate, { dryRun: false, out: () => {}, progress: () => {} })).toEqual([]);
      } finally {
        await migrate.close();
      }
      return await startHarness(db, { resources, steps, reuse });
    } catch (e) {
      if (db !== 'sqlite' || attempt === 5 || !/database is locked/.test(String(e))) throw e;
    }
  }
}

/**
 * The traffic while `mrs migrate` runs. Only on PostgreSQL: on SQLite the servers and the migration
 * share this test's one process, whose busy wait for the file's write lock blocks the event loop
 * that would commit the servers' writes, a deadlock separate processes do not have.
 */
const duringMigration = (db: DatabaseName, servers: Harness[], done: () => boolean): Promise<Reply[]> =>
  db === 'sqlite' ? Promise.resolve([]) : traffic(servers, done);

/** Reads and writes of every kind, round robin over the servers, until `done` says stop. */
async function traffic(servers: Harness[], done: () => boolean): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; !done() || i < 12; i++) {
    const h = servers[i % servers.length]!;
    const id = 1 + (i % 300);
    const calls = [
      () => h.get(`${M}/work_orders?$limit=5`),
      () => h.get(`${M}/work_orders/${id}`),
      () => h.post(`${M}/work_orders`, { ...WORK_ORDER, description: `made ${i}` }),
      () => h.patch(`${M}/work_orders/${id}`, { priority: i % 5 }),
    ];
    replies.push(await calls[i % calls.length]!());
    await new Promise((r) => setImmediate(r)); // the migration runs beside, in this process
  }
  return replies;
}

const expectNo500 = (replies: Reply[]) => {
  const statuses = [...new Set(replies.map((r) => r.status))].sort();
  for (const s of statuses) expect([200, 201, 503], `statuses ${statuses.join(', ')}`).toContain(s);
  for (const r of replies.filter((r) => r.status === 503)) {
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.type).toMatch(/definitions-changed$/);
    expect(r.body.detail).toMatch(/definitions of tenant demo\.main changed since this server started.*must restart/);
  }
};

for (const db of DATABASES)
  describe(`a rolling deploy: servers on the old definitions while mrs migrate runs [${db}]`, () => {
    it('renaming a field, adding one and running a step: every answer is the old one, the new one, or 503 with Retry-After; never a 500', async () => {
      const { servers, first, all } = await oldFleet(db);
      let next: Started | undefined;
      try {
        let migrated = false;
        const during = duringMigration(db, servers, () => migrated);
        next = await migrateTo(first, db, NEXT, [fillSite]);
        migrated = true;
        const replies = await during;
        expectNo500(replies);
        for (const r of replies.filter((r) => r.status === 200 && !Array.isArray(r.body)))
          expect('description' in r.body || ('summary' in r.body && 'site' in r.body)).toBe(true);
        // After: the old servers answer what they cannot serve with the 503; the new one serves it.
        const after = await traffic(servers, () => true);
        expectNo500(after);
        expect(after.filter((r) => r.status === 503).length).toBeGreaterThan(0);
        const read = await next.harness.get(`${M}/work_orders/1`);
        expect(read.status, read.text).toBe(200);
        expect(read.body).toMatchObject({ site: `plant-${read.body.department_id}` });
        expect('summary' in read.body && !('description' in read.body)).toBe(true);
      } finally {
        await next?.stop(true);
        for (const s of all.slice(1)) await s.stop(true);
        await first.stop();
      }
    });

    it('an added field and index never disturb the old servers: every answer stays 200 or 201', async () => {
      const { servers, first, all } = await oldFleet(db);
      let next: Started | undefined;
      try {
        let migrated = false;
        const during = duringMigration(db, servers, () => migrated);
        next = await migrateTo(first, db, ADDED, []);
        migrated = true;
        const replies = [...(await during), ...(await traffic(servers, () => true))];
        expect([...new Set(replies.map((r) => r.status))].sort()).toEqual(expect.arrayContaining([200, 201]));
        expect(replies.filter((r) => r.status !== 200 && r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      } finally {
        await next?.stop(true);
        for (const s of all.slice(1)) await s.stop(true);
        await first.stop();
      }
    });
  });
