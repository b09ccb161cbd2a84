import { describe, expect, it } from 'vitest';
import { DATABASES } from '../support/harness.ts';
import { servedService } from '../support/client-service.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

const RECORDS = 12_345;
const HOUR = 3_600_000;

for (const db of DATABASES) {
  describe(`the client's paging over 12,345 records [${db}]`, () => {
    const clock = { now: Date.now() };
    const served = servedService(db, { now: () => clock.now });

    it('a search read with a pause of an hour (fake clock) between two pages yields each record once, the total known up front', async () => {
      const h = served().harness;
      // Records of another department among them: the search's filter keeps them out.
      const bodies = Array.from({ length: RECORDS }, (_, i) => workOrder({ priority: i % 7 }));
      const mixed = bodies.flatMap((b, i) => (i % 24 === 23 ? [b, workOrder({ department_id: 2 })] : [b]));
      const ids = await insertRecords(h, 'work_orders', mixed);
      const wanted = ids.filter((_, i) => mixed[i]!.department_id === 1);

      const orders = served().client().collection('work_orders');
      const search = await orders.search({ department_id: [1], $orderBy: 'id', $limit: 50 });
      expect(search.total).toBe(RECORDS);
      expect(search.pages).toBe(Math.ceil(RECORDS / 50));
      const seen = new Map<number, number>();
      let paused = false;
      for await (const order of search) {
        seen.set(order.id, (seen.get(order.id) ?? 0) + 1);
        if (seen.size === 5000 && !paused) {
          // Between the 100th page and the 101st: an hour passes, and a record matching is created.
          paused = true;
          clock.now += HOUR;
          await orders.create(workOrder({ department_id: 1 }));
        }
      }
      expect(paused).toBe(true);
      expect(seen.size).toBe(RECORDS);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect([...seen.keys()]).toEqual(wanted); // in the order asked, the record created meanwhile not among them
    }, 120_000);
  });
}
