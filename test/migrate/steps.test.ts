import { expect, it } from 'vitest';
import { defineResource, string, type ResourceDefinition } from '../../engine/define.ts';
import type { MigrationStep } from '../../engine/schema/index.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { fillSite } from '../support/changed-definitions.ts';
import { describeEachDatabase, startHarness, type Harness } from '../support/harness.ts';

const SHIPPED: readonly ResourceDefinition[] = [workOrders, notes, serviceRequests];
/** work_orders with a new required field and no default: refused on a table with rows unless a step fills it. */
const WITH_SITE: readonly ResourceDefinition[] = [
  defineResource({ ...workOrders, fields: { ...workOrders.fields, site: string({ required: true }) } }),
  notes,
  serviceRequests,
];

type Started = Awaited<ReturnType<typeof startHarness>>;

/** Seeds demo.main with work orders on fresh data, then runs `then` with the data's place. */
async function withRows(db: Harness['db'], n: number, then: (reuse: { dataDir?: string; databaseUrl?: string }) => Promise<void>) {
  const first = await startHarness(db, { resources: SHIPPED });
  try {
    const t = (await first.harness.service.tenants.get('demo.main'))!;
    await seedWorkOrders(t, first.harness.service.engine.registry, n);
    await first.stop(true);
    await then({ dataDir: first.dataDir, databaseUrl: first.databaseUrl });
  } finally {
    await first.cleanup();
  }
}

async function startWith(
  reuse: { dataDir?: string; databaseUrl?: string },
  steps: MigrationStep[],
  resources = WITH_SITE,
): Promise<Started> {
  return startHarness(reuseDb(reuse), { resources, steps, reuse });
}
const reuseDb = (reuse: { databaseUrl?: string }): Harness['db'] => (reuse.databaseUrl ? 'postgres' : 'sqlite');

async function rowsOf(s: Started, clientDb = 'demo.main') {
  const t = (await s.harness.service.tenants.get(clientDb))!;
  return t.db.selectFrom('work_orders').selectAll().orderBy('id').execute();
}

describeEachDatabase("the deployment's migration steps", (h) => {
  it('a new required field with a step that fills it migrates a tenant of 10,000 records; the step runs once', async () => {
    await withRows(h().db, 10_000, async (reuse) => {
      let runs = 0;
      const counted: MigrationStep = { ...fillSite, up: async (ctx) => (runs++, fillSite.up(ctx)) };
      const s = await startWith(reuse, [counted]);
      try {
        const rows = await rowsOf(s);
        expect(rows).toHaveLength(10_000);
        expect(rows.every((r) => r.site === `plant-${r.department_id}`)).toBe(true);
        const got = await s.harness.get(`/v4_server/external/v1/maintenance/work_orders/1`);
        expect(got.status, got.text).toBe(200);
        expect(got.body.site).toBe(`plant-${got.body.department_id}`);
      } finally {
        await s.stop(true);
      }
      const again = await startWith(reuse, [counted]);
      await again.stop(true);
      expect(runs).toBe(1);
    });
  });

  it('a step that fails halfway leaves the tenant as it was, names step and tenant, and the next run resumes', async () => {
    await withRows(h().db, 200, async (reuse) => {
      const before = await (async () => {
        const s = await startWith(reuse, [], SHIPPED);
        try {
          return await rowsOf(s);
        } finally {
          await s.stop(true);
        }
      })();
      const failing: MigrationStep = {
        name: '0001-fill-site',
        async up(ctx) {
          await ctx.db.updateTable('work_orders').set({ site: 'half' }).where('id', '<=', 100).execute();
          throw new Error('the lookup table is missing');
        },
      };
      await expect(startWith(reuse, [failing])).rejects.toThrow(
        /tenant demo\.main: migration step 0001-fill-site failed.*the lookup table is missing/,
      );
      const unchanged = await startWith(reuse, [], SHIPPED);
      try {
        expect(await rowsOf(unchanged)).toEqual(before); // no site column, no row changed
      } finally {
        await unchanged.stop(true);
      }
      const resumed = await startWith(reuse, [fillSite]);
      try {
        expect((await rowsOf(resumed)).every((r) => r.site === `plant-${r.department_id}`)).toBe(true);
      } finally {
        await resumed.stop(true);
      }
    });
  });

  it('a step that leaves rows empty is refused after it ran, naming how many; a step changed after it ran is refused', async () => {
    await withRows(h().db, 30, async (reuse) => {
      const partial: MigrationStep = {
        name: '0001-fill-site',
        up: async ({ db }) => void (await db.updateTable('work_orders').set({ site: 'x' }).where('id', '<=', 10).execute()),
      };
      await expect(startWith(reuse, [partial])).rejects.toThrow(/after step 0001-fill-site.*field site: 20 rows still hold null/s);
      const ok = await startWith(reuse, [fillSite]);
      await ok.stop(true);
      const edited: MigrationStep = { ...fillSite, up: async (ctx) => fillSite.up(ctx), source: 'edited' };
      await expect(startWith(reuse, [edited])).rejects.toThrow(/step 0001-fill-site: it ran in this tenant and has changed since/);
    });
  });

  it('a tenant created afterwards gets the current tables and its steps marked, run only where a step asks', async () => {
    await withRows(h().db, 5, async (reuse) => {
      const ran: string[] = [];
      const marked: MigrationStep = { name: '0001-fill-site', up: async (ctx) => (ran.push(`fill ${ctx.tenant}`), fillSite.up(ctx)) };
      const always: MigrationStep = { name: '0002-note', onNewTenant: 'run', up: async (ctx) => void ran.push(`note ${ctx.tenant}`) };
      const s = await startWith(reuse, [marked, always]);
      try {
        await s.harness.service.tenants.create('late.main');
        expect(ran).toEqual(['fill demo.main', 'note demo.main', 'note late.main']);
        const t = (await s.harness.service.tenants.get('late.main'))!;
        const recorded = await t.db.selectFrom('mrs_migration_steps').select('name').orderBy('name').execute();
        expect(recorded.map((r) => r.name)).toEqual(['0001-fill-site', '0002-note']);
      } finally {
        await s.stop(true);
      }
    });
  });
});
