import { expect, it } from 'vitest';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { makeWorkOrder } from '../support/fixtures.ts';

/**
 * A PATCH sent together with a DELETE of the same record never writes the deleted record: it is
 * either done before the delete (200, its event before the delete's) or answered 404 (no event).
 * Both ways of a PATCH race: the one statement of a plain PATCH (PostgreSQL writes it without
 * reading first) and a PATCH whose checks read the record first (`If-Match: *` and a read-only
 * field sent: read, then written, the delete able to commit between the two on PostgreSQL).
 */
const ROUNDS = 150;

describeEachDatabase('a PATCH and a DELETE of one record sent at once', (h) => {
  it(`never an update of a deleted record, ${ROUNDS} rounds`, async () => {
    const ids: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const wo = await makeWorkOrder(h());
      ids.push(wo.id);
      const url = `${M}/work_orders/${wo.id}`;
      const answers = await Promise.all([
        h().request('PATCH', url, { body: { priority: 1 } }),
        h().request('DELETE', url),
        h().request('PATCH', url, { body: { priority: 2 }, headers: { 'if-match': '*' } }),
        h().request('PATCH', url, { body: { priority: 3, id: wo.id } }),
      ]);
      const [plain, del, anyTag, readOnly] = answers;
      expect(del!.status, `round ${round}: ${del!.text}`).toBe(204);
      for (const a of [plain!, anyTag!, readOnly!]) expect([200, 404], `round ${round}: ${a.text}`).toContain(a.status);
      const shown = await h().get(`${url}?$deleted=true`);
      expect(shown.body.deleted).toBe(true);
    }
    const feed = await h().get(`${BASE}/events?collection=work_orders&$limit=10000`);
    expect(feed.status).toBe(200);
    for (const id of ids) {
      const ops = (feed.body as { id: number; op: string; record: { deleted: boolean } }[]).filter((e) => e.id === id);
      expect(ops.at(-1)?.op, `record ${id}: ${ops.map((e) => e.op).join(', ')}`).toBe('delete');
      expect(ops.filter((e) => e.op === 'delete')).toHaveLength(1);
      expect(ops.filter((e) => e.op === 'update').every((e) => !e.record.deleted)).toBe(true);
    }
  }, 120_000);
});
