import { beforeAll, expect, it } from 'vitest';
import { expectProblem, make, makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { ASSET_RESOURCES } from './asset-resources.ts';

/** SPEC 14: `{parent path}/{id}/{child}/{child_id}` answers as `{child path}/{child_id}` when the child is the parent's; else 404. */
const strip = (headers: Headers) => ({ etag: headers.get('etag'), 'last-modified': headers.get('last-modified') });

describeEachDatabase(
  'child item paths',
  (h) => {
    let wo: Record<string, any>;
    let other: Record<string, any>;
    beforeAll(async () => {
      wo = await makeWorkOrder(h());
      other = await makeWorkOrder(h());
    });

    it('GET and HEAD answer exactly as the child path, $fields and $linked too', async () => {
      const note = await makeNote(h(), wo.id, 'seen');
      const own = await h().get(`${M}/notes/${note.id}`);
      const item = await h().get(`${M}/work_orders/${wo.id}/notes/${note.id}`);
      expect(item.status).toBe(200);
      expect(item.body).toEqual(own.body);
      expect(strip(item.headers)).toEqual(strip(own.headers));
      const head = await h().request('HEAD', `${M}/work_orders/${wo.id}/notes/${note.id}`);
      expect([head.status, head.text]).toEqual([200, '']);
      expect((await h().get(`${M}/work_orders/${wo.id}/notes/${note.id}?$fields=note`)).body).toEqual({ id: note.id, note: 'seen' });
    });

    it('PATCH, PUT and DELETE change the child as its own path does, with If-Match', async () => {
      const note = await makeNote(h(), wo.id, 'first');
      const path = `${M}/work_orders/${wo.id}/notes/${note.id}`;
      const p = await h().request('PATCH', path, { body: { note: 'second' }, headers: { 'if-match': '"1"' } });
      expect(p.status, p.text).toBe(200);
      expect(p.body).toMatchObject({ id: note.id, note: 'second', work_order_id: wo.id });
      expect(p.headers.get('etag')).toBe('"2"');
      expectProblem(await h().request('PATCH', path, { body: { note: 'x' }, headers: { 'if-match': '"1"' } }), 412);
      const put = await h().put(path, { note: 'third', work_order_id: wo.id });
      expect(put.body).toMatchObject({ note: 'third' });
      expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(put.body);
      expect((await h().del(path)).status).toBe(204);
      expectProblem(await h().get(path), 404);
      expect((await h().get(`${path}?$deleted=true`)).body).toMatchObject({ deleted: true });
    });

    it("another parent's child, or no such child, is 404 for every method, and nothing changes", async () => {
      const note = await makeNote(h(), wo.id, 'mine');
      const path = `${M}/work_orders/${other.id}/notes/${note.id}`;
      expectProblem(await h().get(path), 404);
      expect((await h().request('HEAD', path)).status).toBe(404);
      expectProblem(await h().patch(path, { note: 'stolen' }), 404);
      expectProblem(await h().put(path, { note: 'stolen', work_order_id: other.id }), 404);
      expectProblem(await h().del(path), 404);
      expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(note);
      expectProblem(await h().get(`${M}/work_orders/${wo.id}/notes/987654`), 404);
      expectProblem(await h().get(`${M}/work_orders/987654/notes/${note.id}`), 404);
    });

    it('POST is 405 with the record path Allow; a root-level parent works alike', async () => {
      const note = await makeNote(h(), wo.id);
      const r = await h().post(`${M}/work_orders/${wo.id}/notes/${note.id}`, { note: 'x' });
      expectProblem(r, 405);
      expect(r.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE');
      const asset = await make(h(), `${BASE}/assets`, { profile_id: 1, tag: 't' });
      const attr = await make(h(), `${BASE}/assets/${asset.id}/attributes`, { name: 'n' });
      expect((await h().get(`${BASE}/assets/${asset.id}/attributes/${attr.id}`)).body).toEqual(attr);
      const elsewhere = await make(h(), `${BASE}/assets`, { profile_id: 1, tag: 'u' });
      expectProblem(await h().get(`${BASE}/assets/${elsewhere.id}/attributes/${attr.id}`), 404);
    });

    it('permissions are those of the child collection, and a batch may use item paths', async () => {
      const note = await makeNote(h(), wo.id);
      const reader = h().as((await h().login({ username: 'rory', roles: ['reader'] })).token);
      expect((await reader.get(`${M}/work_orders/${wo.id}/notes/${note.id}`)).status).toBe(200);
      expectProblem(await reader.patch(`${M}/work_orders/${wo.id}/notes/${note.id}`, { note: 'no' }), 403);
      const ok = await h().post(`${BASE}/batch`, {
        operations: [{ method: 'PATCH', path: `/maintenance/work_orders/${wo.id}/notes/${note.id}`, body: { note: 'batched' } }],
      });
      expect(ok.status, ok.text).toBe(200);
      const refused = await h().post(`${BASE}/batch`, {
        operations: [
          { method: 'POST', path: '/maintenance/work_orders', body: WORK_ORDER },
          { method: 'DELETE', path: `/maintenance/work_orders/${other.id}/notes/${note.id}` },
        ],
      });
      expectProblem(refused, 404);
      expect((await h().get(`${M}/notes/${note.id}`)).body).toMatchObject({ note: 'batched', deleted: false });
    });
  },
  { resources: ASSET_RESOURCES },
);
