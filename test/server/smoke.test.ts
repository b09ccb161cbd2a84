import { expect, it } from 'vitest';
import { describeEachDatabase, M } from '../support/harness.ts';

describeEachDatabase('smoke', (h) => {
  it('creates, reads, lists', async () => {
    const c = await h().post(`${M}/work_orders`, { department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 });
    expect(c.status, c.text).toBe(201);
    const r = await h().get(`${M}/work_orders/${c.body.id}`);
    expect(r.body).toEqual(c.body);
    const l = await h().get(`${M}/work_orders`);
    expect(l.body).toEqual([c.body]);
  });
});
