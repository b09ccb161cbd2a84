import { beforeAll, expect, it } from 'vitest';
import { expectProblem, makeNote, makeWorkOrder, SERVICE_REQUEST, WORK_ORDER } from '../support/fixtures.ts';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { makeRole } from '../support/auth.ts';

describeEachDatabase('roles and permissions', (h) => {
  let wo: Record<string, any>;
  let note: Record<string, any>;
  beforeAll(async () => {
    wo = await makeWorkOrder(h());
    note = await makeNote(h(), wo.id);
  });
  const as = async (username: string, roles: string[]): Promise<Harness> => h().as((await h().login({ username, roles })).token);

  it('admin may do everything', async () => {
    const admin = await as('ada', ['admin']);
    expect((await admin.patch(`${M}/work_orders/${wo.id}`, { priority: 1 })).status).toBe(200);
    expect((await admin.post(`${M}/service_requests`, SERVICE_REQUEST)).status).toBe(201);
    const extra = await makeWorkOrder(admin);
    expect((await admin.del(`${M}/work_orders/${extra.id}`)).status).toBe(204);
  });

  it('a reader can list and read, and gets 403 on POST, PATCH, PUT and DELETE, changing nothing', async () => {
    const reader = await as('rita', ['reader']);
    for (const path of [
      'work_orders',
      `work_orders/${wo.id}`,
      `work_orders/${wo.id}/notes`,
      'notes',
      `notes/${note.id}`,
      'service_requests',
    ])
      expect((await reader.get(`${M}/${path}`)).status, path).toBe(200);
    const before = (await h().get(`${M}/work_orders/${wo.id}`)).body;
    expectProblem(await reader.post(`${M}/work_orders`, WORK_ORDER), 403);
    expectProblem(await reader.post(`${M}/work_orders/${wo.id}/notes`, { note: 'no' }), 403);
    expectProblem(await reader.patch(`${M}/work_orders/${wo.id}`, { priority: 3 }), 403);
    expectProblem(await reader.put(`${M}/work_orders/${wo.id}`, WORK_ORDER), 403);
    expectProblem(await reader.del(`${M}/work_orders/${wo.id}`), 403);
    expectProblem(await reader.del(`${M}/notes/${note.id}`), 403);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(before);
    expect(Number((await h().get(`${M}/work_orders/${wo.id}/notes`)).headers.get('x-total'))).toBe(1);
  });

  it('403 comes after 404 for the path and 405, before 404 for the record', async () => {
    const reader = await as('rory', ['reader']);
    expectProblem(await reader.del(`${M}/no_such/1`), 404);
    expectProblem(await reader.request('PATCH', `${M}/work_orders`, { body: {} }), 405);
    expectProblem(await reader.del(`${M}/work_orders/999999`), 403);
  });

  it('a role granting only notes:create can add notes and nothing else', async () => {
    await makeRole(h().service, 'demo.main', 'note_adder', [{ collection: 'notes', action: 'create' }]);
    const nina = await as('nina', ['note_adder']);
    const child = await nina.post(`${M}/work_orders/${wo.id}/notes`, { note: 'from nina' });
    expect(child.status, child.text).toBe(201);
    const top = await nina.post(`${M}/notes`, { work_order_id: wo.id, note: 'also nina' });
    expect(top.status, top.text).toBe(201);
    for (const path of [
      'notes',
      `notes/${child.body.id}`,
      `work_orders/${wo.id}/notes`,
      'work_orders',
      `work_orders/${wo.id}`,
      'service_requests',
    ])
      expectProblem(await nina.get(`${M}/${path}`), 403);
    expectProblem(await nina.patch(`${M}/notes/${child.body.id}`, { note: 'changed' }), 403);
    expectProblem(await nina.put(`${M}/notes/${child.body.id}`, { work_order_id: wo.id, note: 'changed' }), 403);
    expectProblem(await nina.del(`${M}/notes/${child.body.id}`), 403);
    expectProblem(await nina.post(`${M}/work_orders`, WORK_ORDER), 403);
    expectProblem(await nina.post(`${M}/service_requests`, SERVICE_REQUEST), 403);
    expect((await h().get(`${M}/notes/${child.body.id}`)).body.note).toBe('from nina');
  });

  it('grants on every collection (*) and every action (*) combine across roles', async () => {
    await makeRole(h().service, 'demo.main', 'wo_all', [{ collection: 'work_orders', action: '*' }]);
    await makeRole(h().service, 'demo.main', 'deleter', [{ collection: '*', action: 'delete' }]);
    const user = await as('will', ['wo_all', 'deleter']);
    const made = await makeWorkOrder(user);
    expect((await user.patch(`${M}/work_orders/${made.id}`, { priority: 4 })).status).toBe(200);
    const n = await makeNote(h(), made.id);
    expectProblem(await user.get(`${M}/notes/${n.id}`), 403);
    expect((await user.del(`${M}/notes/${n.id}`)).status).toBe(204);
    expectProblem(await user.get(`${M}/service_requests`), 403);
  });

  it('a user with no roles can authenticate and may do nothing', async () => {
    const nobody = await as('nemo', []);
    expectProblem(await nobody.get(`${M}/work_orders`), 403);
    expectProblem(await nobody.post(`${M}/work_orders`, WORK_ORDER), 403);
  });
});
