import { afterAll, expect, it } from 'vitest';
import { loadResources } from '../../server/load-resources.ts';
import { describeEachDatabase, M, startHarness } from '../support/harness.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { DEFINE_URL, resourcesCopy, tableShape } from '../support/resources-dir.ts';

// The file a user drops into resources/, as the README shows it.
const ASSETS = `import { defineResource, integer, string } from '${DEFINE_URL}';

export default defineResource({
  name: 'assets',
  fields: {
    name: string({ required: true, filterable: true, maxLength: 200 }),
    location: string({ nullable: true, filterable: true }),
    work_order_id: integer({ nullable: true, filterable: true, parent: 'work_orders' }),
  },
});
`;

const copy = resourcesCopy({ 'assets.ts': ASSETS });
afterAll(() => copy.remove());
const resources = await loadResources(copy.dir);

describeEachDatabase(
  'a definition file dropped into resources/',
  (h) => {
    it('is loaded beside the real definitions', () => {
      expect(resources.map((r) => r.name).sort()).toEqual(['assets', 'notes', 'service_requests', 'work_orders']);
    });

    it('has routes: create, read, list with filters, PATCH, PUT, DELETE, 405', async () => {
      const c = await h().post(`${M}/assets`, { name: 'boiler', location: 'basement' });
      expect(c.status, c.text).toBe(201);
      expect(c.headers.get('location')).toBe(`${M}/assets/${c.body.id}`);
      expect(c.body).toMatchObject({ name: 'boiler', location: 'basement', work_order_id: null, deleted: false });
      expect(Object.keys(c.body).sort()).toEqual(['created', 'deleted', 'id', 'location', 'name', 'updated', 'work_order_id']);
      await h().post(`${M}/assets`, { name: 'pump' });
      expect((await h().get(`${M}/assets/${c.body.id}`)).body).toEqual(c.body);
      const byLocation = await h().get(`${M}/assets?location=basement`);
      expect(byLocation.body).toEqual([c.body]);
      expect(byLocation.headers.get('x-total')).toBe('1');
      expect((await h().get(`${M}/assets?name=pump`)).body).toHaveLength(1);
      const p = await h().patch(`${M}/assets/${c.body.id}`, { location: 'roof' });
      expect(p.body).toMatchObject({ name: 'boiler', location: 'roof' });
      const put = await h().put(`${M}/assets/${c.body.id}`, { name: 'boiler 2' });
      expect(put.body).toMatchObject({ name: 'boiler 2', location: null });
      expect((await h().del(`${M}/assets/${c.body.id}`)).status).toBe(204);
      expectProblem(await h().get(`${M}/assets/${c.body.id}`), 404);
      const wrong = await h().request('DELETE', `${M}/assets`);
      expectProblem(wrong, 405);
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
    });

    it('is a child collection of the resource its parent link names', async () => {
      const wo = await makeWorkOrder(h());
      const a = await h().post(`${M}/work_orders/${wo.id}/assets`, { name: 'valve' });
      expect(a.status, a.text).toBe(201);
      expect(a.body.work_order_id).toBe(wo.id);
      expect((await h().get(`${M}/work_orders/${wo.id}/assets`)).body).toEqual([a.body]);
      expectProblem(await h().post(`${M}/assets`, { name: 'x', work_order_id: 987654 }), 422, ['work_order_id']);
      expectProblem(await h().get(`${M}/work_orders/987654/assets`), 404);
    });

    it('has validation derived from the definition', async () => {
      expectProblem(await h().post(`${M}/assets`, { location: 'x' }), 422, ['name']);
      expectProblem(await h().post(`${M}/assets`, { name: 'n'.repeat(201), location: 5, size: 3 }), 422, ['name', 'location', 'size']);
      expectProblem(await h().post(`${M}/assets`, { name: null }), 422, ['name']);
      expectProblem(await h().get(`${M}/assets?colour=red`), 400, ['colour']);
    });

    it('has a table with a column per field and an index per filterable field', async () => {
      const shape = await tableShape(h(), 'assets');
      expect(shape.columns).toEqual(['created', 'deleted', 'id', 'location', 'mrs_version', 'name', 'updated', 'work_order_id']);
      for (const field of ['name', 'location', 'work_order_id', 'created'])
        expect(shape.indexes, shape.indexes.join(', ')).toContain(`assets_${field}_idx`);
    });

    it('works after a restart on data made before the file was there', async () => {
      const first = await startHarness(h().db);
      try {
        const wo = (await first.harness.post(`${M}/work_orders`, WORK_ORDER)).body;
        expectProblem(await first.harness.get(`${M}/assets`), 404);
        await first.stop(true);
        const second = await startHarness(h().db, {
          resources,
          reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl },
        });
        try {
          expect((await second.harness.get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
          const a = await second.harness.post(`${M}/work_orders/${wo.id}/assets`, { name: 'fan', location: 'attic' });
          expect(a.status, a.text).toBe(201);
          expect((await second.harness.get(`${M}/assets?location=attic`)).body).toEqual([a.body]);
          expect((await tableShape(second.harness, 'assets')).indexes).toContain('assets_location_idx');
        } finally {
          await second.stop(true);
        }
      } finally {
        await first.cleanup();
      }
    });
  },
  { resources },
);
