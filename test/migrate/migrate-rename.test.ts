import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import { isEmptyPlan } from '../../engine/schema/index.ts';
import { DATABASES, M, startHarness, type DatabaseName, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DEFAULTS, populated, post, withWorkOrderFields, type Definitions } from '../support/changed-definitions.ts';
import { tableShape } from '../support/resources-dir.ts';
import { rawQuery, schemaDump, type DataPlace } from '../support/schema-dump.ts';

const WITH_LOCATION = withWorkOrderFields({ location: string({ nullable: true, filterable: true }) });
const RENAMED = withWorkOrderFields({ place: string({ nullable: true, filterable: true, renamedFrom: 'location' }) });

/** Starts the service on `place` with `resources`, runs `body`, stops it (keeping the data). */
async function restarted(db: DatabaseName, place: DataPlace, resources: Definitions, body: (h: Harness) => Promise<void>) {
  const s = await startHarness(db, { resources, reuse: place });
  try {
    await body(s.harness);
  } finally {
    await s.stop(true);
  }
}

const LOCATIONS = ['roof', 'cellar', null, 'attic'];

/** Work orders with locations; the last one soft-deleted. */
async function withLocations(h: Harness, made: Record<string, any>[]) {
  for (const location of LOCATIONS)
    made.push(await post(h, `${M}/work_orders`, { ...WORK_ORDER, location, description: `at ${location}` }));
  const gone = made.at(-1)!.id;
  expect((await h.del(`${M}/work_orders/${gone}`)).status).toBe(204);
  made[made.length - 1] = (await h.get(`${M}/work_orders/${gone}?$deleted=true`)).body;
}

for (const db of DATABASES)
  describe(`renaming and removing fields [${db}]`, () => {
    it('renamedFrom renames the column: the data stays readable and filterable under the new name, the index moves, and a second migrate does nothing', async () => {
      const made: Record<string, any>[] = [];
      const { place, cleanup } = await populated(db, (h) => withLocations(h, made), WITH_LOCATION);
      try {
        await restarted(db, place, RENAMED, async (h) => {
          for (const [i, old] of made.entries()) {
            const r = await h.get(`${M}/work_orders/${old.id}${i === made.length - 1 ? '?$deleted=true' : ''}`);
            expect(r.status, r.text).toBe(200);
            const { location, ...rest } = old;
            expect(r.body).toEqual({ ...rest, place: location });
          }
          expect((await h.get(`${M}/work_orders?place=roof`)).body.map((w: { id: number }) => w.id)).toEqual([made[0]!.id]);
          expect((await h.get(`${M}/work_orders?place:null=`)).body.map((w: { id: number }) => w.id)).toEqual([made[2]!.id]);
          expect((await h.get(`${M}/work_orders?location=roof`)).status).toBe(400);
          const shape = await tableShape(h, 'work_orders');
          expect(shape.columns).toContain('place');
          expect(shape.columns).not.toContain('location');
          expect(shape.indexes).toContain('work_orders_place_idx');
          expect(shape.indexes).not.toContain('work_orders_location_idx');
          // Idempotent: planned again, nothing to do; migrated again, nothing changes.
          const t = (await h.service.tenants.get('demo.main'))!;
          const plan = await h.service.engine.plan(t);
          expect(plan.tables.filter((p) => !isEmptyPlan(p) || p.keptColumns.length > 0)).toEqual([]);
        });
        const before = await schemaDump(place);
        await restarted(db, place, RENAMED, async (h) => {
          expect((await h.get(`${M}/work_orders/${made[0]!.id}`)).body.place).toBe('roof');
          // A tenant made after the rename gets the new name directly.
          await h.login({ clientDb: 'fresh.main' });
          const fresh = (await h.service.tenants.get('fresh.main'))!;
          const live = (await fresh.catalog.liveTables(fresh, ['work_orders'])).get('work_orders')!;
          expect(live.columns.has('place')).toBe(true);
          expect(live.columns.has('location')).toBe(false);
          expect(live.indexes.has('work_orders_place_idx')).toBe(true);
        });
        expect(await schemaDump(place)).toEqual(before);
      } finally {
        await cleanup();
      }
    });

    it('a lazy cursor asked before a rename and read after it is gone (410): its search names the old field; a cursor made at once still pages', async () => {
      const made: Record<string, any>[] = [];
      const cursors = { lazy: '', eager: '' };
      const { place, cleanup } = await populated(
        db,
        async (h) => {
          await withLocations(h, made);
          // Page 1 is lazy (engine/cursor/lazy.ts); a search starting on page 2 is made at once.
          cursors.lazy = (await h.get(`${M}/work_orders?$orderBy=location&$limit=1`)).headers.get('x-cursor')!;
          cursors.eager = (await h.get(`${M}/work_orders?$orderBy=location&$limit=1&$page=2`)).headers.get('x-cursor')!;
          expect((await h.patch(`${M}/work_orders/${made[0]!.id}`, { location: 'yard' })).status).toBe(200);
        },
        WITH_LOCATION,
      );
      try {
        await restarted(db, place, RENAMED, async (h) => {
          const lazy = await h.get(`${M}/work_orders?$cursor=${cursors.lazy}&$page=2`);
          expect([lazy.status, lazy.body.detail]).toEqual([410, expect.stringContaining('definition-changed')]);
          const eager = await h.get(`${M}/work_orders?$cursor=${cursors.eager}&$page=2`);
          expect(eager.status, eager.text).toBe(200);
          expect(eager.body).toHaveLength(1);
        });
      } finally {
        await cleanup();
      }
    });

    it('a column no field names any more is kept with its data, the plan says so, and a field naming it again shows the data', async () => {
      const made: Record<string, any>[] = [];
      const { place, cleanup } = await populated(db, (h) => withLocations(h, made), WITH_LOCATION);
      try {
        await restarted(db, place, DEFAULTS, async (h) => {
          const t = (await h.service.tenants.get('demo.main'))!;
          const plan = await h.service.engine.plan(t);
          expect(plan.tables.find((p) => p.resource === 'work_orders')!.keptColumns).toEqual(['location']);
          const r = await h.get(`${M}/work_orders/${made[0]!.id}`);
          expect(r.body).not.toHaveProperty('location');
          // What GET gives can be PUT back, and leaves the kept column alone.
          expect((await h.put(`${M}/work_orders/${made[0]!.id}`, r.body)).status).toBe(200);
        });
        expect(await rawQuery(place, 'select location from work_orders order by id')).toEqual(LOCATIONS.map((location) => ({ location })));
        await restarted(db, place, WITH_LOCATION, async (h) => {
          expect((await h.get(`${M}/work_orders/${made[0]!.id}`)).body.location).toBe('roof');
        });
      } finally {
        await cleanup();
      }
    });
  });
