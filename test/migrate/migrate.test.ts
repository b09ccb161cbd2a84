import { expect, it } from 'vitest';
import { boolean, defineResource, integer, number, string } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { describeEachDatabase, M, startHarness, type DatabaseName, type StartOptions } from '../support/harness.ts';
import { expectProblem, WORK_ORDER } from '../support/fixtures.ts';
import { tableShape } from '../support/resources-dir.ts';

/** work_orders with four more fields: nullable, with a default, a boolean and a number with defaults. */
const extendedWorkOrders = defineResource({
  ...workOrders,
  fields: {
    ...workOrders.fields,
    location: string({ nullable: true, filterable: true }),
    cost: integer({ default: 0, filterable: true }),
    urgent: boolean({ default: false }),
    hours: number({ default: 1.5, filterable: true }),
  },
});
const EXTENDED = [extendedWorkOrders, notes, serviceRequests];

/** Starts on fresh data, runs `before`, restarts on the same data with `resources`, runs `after`. */
async function restartWith(
  db: DatabaseName,
  resources: NonNullable<StartOptions['resources']>,
  before: (h: Awaited<ReturnType<typeof startHarness>>['harness']) => Promise<void>,
  after: (h: Awaited<ReturnType<typeof startHarness>>['harness']) => Promise<void>,
): Promise<void> {
  const first = await startHarness(db);
  try {
    await before(first.harness);
    await first.stop(true);
    const second = await startHarness(db, { resources, reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
    try {
      await after(second.harness);
    } finally {
      await second.stop(true);
    }
  } finally {
    await first.cleanup();
  }
}

describeEachDatabase('migrations from definitions', (h) => {
  it('a field added to a definition becomes a column on the next start; existing rows keep their data', async () => {
    const made: Record<string, any>[] = [];
    await restartWith(
      h().db,
      EXTENDED,
      async (first) => {
        for (const extra of [{ priority: 2, description: 'old one' }, { status: 'closed' }]) {
          const r = await first.post(`${M}/work_orders`, { ...WORK_ORDER, ...extra });
          expect(r.status, r.text).toBe(201);
          made.push(r.body);
        }
        const note = await first.post(`${M}/work_orders/${made[0]!.id}/notes`, { note: 'kept' });
        expect(note.status).toBe(201);
      },
      async (second) => {
        const shape = await tableShape(second, 'work_orders');
        expect(shape.columns).toEqual(expect.arrayContaining(['location', 'cost', 'urgent', 'hours', 'priority', 'description']));
        expect(shape.indexes).toEqual(
          expect.arrayContaining(['work_orders_location_idx', 'work_orders_cost_idx', 'work_orders_hours_idx']),
        );
        for (const old of made) {
          const r = await second.get(`${M}/work_orders/${old.id}`);
          expect(r.status, r.text).toBe(200);
          // the old data, the new nullable field empty, the fields with defaults at their defaults
          expect(r.body).toEqual({ ...old, location: null, cost: 0, urgent: false, hours: 1.5 });
          // what GET gives can be PUT back
          const back = await second.put(`${M}/work_orders/${old.id}`, r.body);
          expect(back.status, back.text).toBe(200);
        }
        const kept = await second.get(`${M}/work_orders/${made[0]!.id}/notes`);
        expect(kept.body, kept.text).toMatchObject([{ note: 'kept' }]);
        expect((await second.get(`${M}/work_orders?cost=0`)).headers.get('x-total')).toBe('2');
        expect((await second.get(`${M}/work_orders?hours:gt=1.25`)).headers.get('x-total')).toBe('2');
        const c = await second.post(`${M}/work_orders`, { ...WORK_ORDER, location: 'roof', cost: 12, urgent: true });
        expect(c.status, c.text).toBe(201);
        expect((await second.get(`${M}/work_orders?location=roof`)).body).toEqual([c.body]);
        expectProblem(await second.post(`${M}/work_orders`, { ...WORK_ORDER, cost: null }), 422, ['cost']);
      },
    );
  });

  it('migrating twice changes nothing and loses nothing', async () => {
    const t = await h().service.tenants.get('demo.main');
    const wo = (await h().post(`${M}/work_orders`, WORK_ORDER)).body;
    const before = await tableShape(h(), 'work_orders');
    await h().service.engine.migrate(t!);
    await h().service.engine.migrate(t!);
    expect(await tableShape(h(), 'work_orders')).toEqual(before);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
  });

  it('restarting on the same definitions keeps the data', async () => {
    let wo: Record<string, any> = {};
    await restartWith(
      h().db,
      EXTENDED,
      async (first) => {
        wo = (await first.post(`${M}/work_orders`, WORK_ORDER)).body;
      },
      async (second) => {
        const read = await second.get(`${M}/work_orders/${wo.id}`);
        expect(read.status).toBe(200);
        // a second migration of the extended tables, by hand
        await second.service.engine.migrate((await second.service.tenants.get('demo.main'))!);
        expect((await second.get(`${M}/work_orders/${wo.id}`)).body).toEqual(read.body);
      },
    );
  });
  // What earlier versions derived for ['department_id', 'status']: the bare columns, then the
  // columns and deleted (PostgreSQL's index now ends with id as well).
  const current = () => (h().db === 'sqlite' ? ['department_id', 'status', 'deleted'] : ['department_id', 'status', 'deleted', 'id']);
  const earlierForms = () =>
    h().db === 'sqlite'
      ? [['department_id', 'status']]
      : [
          ['department_id', 'status'],
          ['department_id', 'status', 'deleted'],
        ];
  const indexName = (cols: string[]) => `work_orders_${cols.join('_')}_idx`;
  it("a declared query pattern's index from an earlier version is replaced on the next start", async () => {
    for (const earlier of earlierForms()) {
      const ids: number[] = [];
      await restartWith(
        h().db,
        [workOrders, notes, serviceRequests],
        async (first) => {
          const t = (await first.service.tenants.get('demo.main'))!;
          await t.db.schema.dropIndex(indexName(current())).execute();
          await t.db.schema.createIndex(indexName(earlier)).on('work_orders').columns(earlier).execute();
          expect((await tableShape(first, 'work_orders')).indexes).toContain(indexName(earlier));
          for (const status of ['open', 'closed', 'open'])
            ids.push((await first.post(`${M}/work_orders`, { ...WORK_ORDER, department_id: 41, status })).body.id);
        },
        async (second) => {
          const { indexes } = await tableShape(second, 'work_orders');
          expect(indexes).toContain(indexName(current()));
          expect(indexes).not.toContain(indexName(earlier));
          const r = await second.get(`${M}/work_orders?department_id=41&status=open`);
          expect(r.body.map((w: { id: number }) => w.id)).toEqual([ids[0], ids[2]]);
        },
      );
    }
  });
});
