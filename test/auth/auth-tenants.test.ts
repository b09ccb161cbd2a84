import { beforeAll, expect, it } from 'vitest';
import { expectProblem, makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';

describeEachDatabase('a token works on its own tenant only', (h) => {
  let other: Harness;
  let wo: Record<string, any>;
  let note: Record<string, any>;
  beforeAll(async () => {
    wo = await makeWorkOrder(h(), { department_id: 7 });
    note = await makeNote(h(), wo.id, 'demo note');
    other = h().as((await h().login({ clientDb: 'other.main', username: 'admin' })).token);
  });

  it('other.main sees none of demo.main: 404 on its ids, empty lists', async () => {
    expectProblem(await other.get(`${M}/work_orders/${wo.id}`), 404);
    expectProblem(await other.get(`${M}/work_orders/${wo.id}?$deleted=true`), 404);
    expectProblem(await other.get(`${M}/notes/${note.id}`), 404);
    expectProblem(await other.get(`${M}/work_orders/${wo.id}/notes`), 404);
    for (const path of ['work_orders', 'work_orders?department_id=7', 'notes', 'service_requests', 'work_orders?$deleted=true']) {
      const r = await other.get(`${M}/${path}`);
      expect(r.status, path).toBe(200);
      expect(r.body, path).toEqual([]);
      expect(r.headers.get('x-total'), path).toBe('0');
    }
  });

  it('other.main changes none of demo.main: PATCH, PUT, DELETE and child POST are 404, and the records stay as they were', async () => {
    expectProblem(await other.patch(`${M}/work_orders/${wo.id}`, { priority: 9 }), 404);
    expectProblem(await other.put(`${M}/work_orders/${wo.id}`, WORK_ORDER), 404);
    expectProblem(await other.del(`${M}/work_orders/${wo.id}`), 404);
    expectProblem(await other.del(`${M}/notes/${note.id}`), 404);
    expectProblem(await other.post(`${M}/work_orders/${wo.id}/notes`, { note: 'sneaky' }), 404);
    expectProblem(await other.post(`${M}/notes`, { work_order_id: wo.id, note: 'sneaky' }), 422);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([note]);
  });

  it('what other.main creates lives in other.main only, even with the same ids', async () => {
    const mine = await other.post(`${M}/work_orders`, { ...WORK_ORDER, department_id: 8 });
    expect(mine.status, mine.text).toBe(201);
    expect((await other.get(`${M}/work_orders`)).body).toEqual([mine.body]);
    const demo = await h().get(`${M}/work_orders?department_id=8`);
    expect(demo.body).toEqual([]);
    if (mine.body.id === wo.id) expect((await h().get(`${M}/work_orders/${wo.id}`)).body.department_id).toBe(7);
    else expectProblem(await h().get(`${M}/work_orders/${mine.body.id}`), 404);
  });

  it('a cursor made on one tenant is unknown on the other (410)', async () => {
    const c = (await h().get(`${M}/work_orders`)).headers.get('x-cursor');
    expect(c).toBeTruthy();
    expectProblem(await other.get(`${M}/work_orders?$cursor=${c}&$page=1`), 410);
  });
});
