import { describe, expect, it } from 'vitest';
import { integer, string } from '../../engine/define.ts';
import { loadConfig } from '../../server/config.ts';
import { migrateTenants } from '../../server/migrate-tenants.ts';
import { createService } from '../../server/service.ts';
import { DATABASES, M, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { openDemo, populated, post, withWorkOrderFields, type Definitions } from '../support/changed-definitions.ts';
import { rawQuery, schemaDump, type DataPlace } from '../support/schema-dump.ts';

/** Three new columns, two of them filterable (each with an index), so a migration has several steps. */
const EXTENDED = withWorkOrderFields({
  location: string({ nullable: true, filterable: true }),
  cost: integer({ default: 0, filterable: true }),
  urgent: string({ default: 'no' }),
});

/** `mrs migrate` (or its dry run) on the data at `place` with `resources`: what it printed and refused. */
async function migrateAll(place: DataPlace, resources: Definitions, dryRun = false, concurrency = 1) {
  const service = await createService(loadConfig({ DATA_DIR: place.dataDir, DATABASE_URL: place.databaseUrl }), {
    resources,
    migrateOnOpen: false,
  });
  const out: string[] = [];
  const progress: string[] = [];
  try {
    const refusals = await migrateTenants(service, { dryRun, concurrency, out: (t) => out.push(t), progress: (l) => progress.push(l) });
    return { refusals, out, progress };
  } finally {
    await service.close();
  }
}

/** demo.main with work orders that all have a description; zz.main with one that has none. */
async function twoTenants(h: Harness) {
  await post(h, `${M}/work_orders`, { ...WORK_ORDER, description: 'pump' });
  const other = await h.login({ clientDb: 'zz.main' });
  const r = await h.as(other.token).post(`${M}/work_orders`, WORK_ORDER);
  expect(r.status, r.text).toBe(201);
}

for (const db of DATABASES)
  describe(`migrating all or nothing [${db}]`, () => {
    it('a migration whose DDL fails part-way leaves nothing half-done', async () => {
      const { place, cleanup } = await populated(db, async (h) => void (await post(h, `${M}/work_orders`, WORK_ORDER)));
      try {
        // An object holding the name of the second index to make: the columns are added and the
        // first index made before that statement fails.
        await rawQuery(place, 'create table work_orders_cost_idx (x integer)');
        const before = await schemaDump(place);
        const e = await openDemo(place, EXTENDED);
        expect(e?.message).toMatch(/work_orders_cost_idx/);
        expect(await schemaDump(place)).toEqual(before);
        // Once the name is free, the same migration goes through whole.
        await rawQuery(place, 'drop table work_orders_cost_idx');
        expect(await openDemo(place, EXTENDED)).toBeUndefined();
        expect(await schemaDump(place)).toMatch(/work_orders_cost_idx[\s\S]*work_orders_location_idx/);
      } finally {
        await cleanup();
      }
    });

    it("mrs migrate plans every tenant first: one tenant's refusal stops before any tenant changes", async () => {
      const { place, cleanup } = await populated(db, twoTenants);
      try {
        const before = { demo: await schemaDump(place), zz: await schemaDump(place, 'zz.main') };
        const strict = withWorkOrderFields({
          description: string({ required: true }),
          location: string({ nullable: true, filterable: true }),
        });
        // Planned two at a time: still every tenant planned before any changes.
        const r = await migrateAll(place, strict, false, 2);
        expect(r.refusals).toEqual([
          expect.stringMatching(/^tenant zz\.main: resource work_orders: field description: is required, but rows hold null/),
        ]);
        expect(r.progress).toEqual([]);
        // demo.main sorts first and could have migrated alone: it did not.
        expect(await schemaDump(place)).toEqual(before.demo);
        expect(await schemaDump(place, 'zz.main')).toEqual(before.zz);
        // The dry run says the same, per tenant and resource, and changes nothing.
        const dry = await migrateAll(place, strict, true);
        expect(dry.out.join('\n')).toMatch(
          /^tenant demo\.main\n[\s\S]*  work_orders:\n    add column location[\s\S]*^tenant zz\.main\n[\s\S]*    REFUSED resource work_orders: field description: is required/m,
        );
        expect(await schemaDump(place)).toEqual(before.demo);
        // Allowed changes migrate every tenant, a progress line each.
        const ok = await migrateAll(place, withWorkOrderFields({ location: string({ nullable: true, filterable: true }) }));
        expect(ok.refusals).toEqual([]);
        expect(ok.progress).toEqual([
          'migrated demo.main: work_orders: added column location (string); work_orders: added index work_orders_location_idx on (location)',
          'migrated zz.main: work_orders: added column location (string); work_orders: added index work_orders_location_idx on (location)',
        ]);
      } finally {
        await cleanup();
      }
    });
  });
