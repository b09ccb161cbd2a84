import { expect, it } from 'vitest';
import { describeEachDatabase, M } from './support/harness.ts';
import { tableShape } from './support/resources-dir.ts';
import { insertRecords, workOrder } from './support/rows.ts';

describeEachDatabase('composite indexes from declared query patterns', (h) => {
  it('work_orders gets its department_id + status index, and searches on both still answer right', async () => {
    // PostgreSQL's index entries do not carry the id, so its pattern index ends with id too.
    const name = h().db === 'sqlite' ? 'work_orders_department_id_status_deleted_idx' : 'work_orders_department_id_status_deleted_id_idx';
    expect((await tableShape(h(), 'work_orders')).indexes).toContain(name);
    const ids = await insertRecords(h(), 'work_orders', [
      workOrder({ department_id: 5, status: 'open' }),
      workOrder({ department_id: 5, status: 'closed' }),
      workOrder({ department_id: 6, status: 'open' }),
      workOrder({ department_id: 5, status: 'open' }),
    ]);
    const r = await h().get(`${M}/work_orders?department_id=5&status=open`);
    expect(r.body.map((w: { id: number }) => w.id)).toEqual([ids[0], ids[3]]);
  });
});
