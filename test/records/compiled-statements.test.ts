import { expect, it } from 'vitest';
import { trackShapes, valueProblems } from '../../engine/compiled-queries.ts';
import { makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';

// Before any statement compiles: every shape compiled in this file is noted.
const used = trackShapes();

/** Requests that reach each kind of statement the engine compiles once: writes, reads, searches, the feed, batches. */
async function workload(h: Harness) {
  const a = await makeWorkOrder(h, { description: 'a', priority: 1 });
  const b = await makeWorkOrder(h, { description: 'b', priority: 2 });
  await makeNote(h, a.id);
  const tag = (await h.get(`${M}/work_orders/${a.id}`)).headers.get('etag')!;
  await h.request('PATCH', `${M}/work_orders/${a.id}`, { body: { priority: 3 }, headers: { 'if-match': tag } });
  await h.patch(`${M}/work_orders/${b.id}`, { description: 'b2' });
  await h.put(`${M}/work_orders/${b.id}`, { ...WORK_ORDER, description: 'b3' });
  await h.request('POST', `${M}/work_orders`, { body: { ...WORK_ORDER, description: 'keyed' }, headers: { 'idempotency-key': 'k1' } });
  await h.request('POST', `${M}/work_orders`, { body: { ...WORK_ORDER, description: 'keyed' }, headers: { 'idempotency-key': 'k1' } });
  await h.request('PATCH', `${M}/work_orders/${a.id}`, { body: { priority: 4 }, headers: { 'idempotency-key': 'k2' } });
  await h.request('POST', `${BASE}/batch`, {
    body: {
      operations: [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'c' } },
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'd' } },
        { method: 'PATCH', path: `/maintenance/work_orders/${a.id}`, body: { priority: 5 } },
      ],
    },
  });
  const first = await h.get(`${M}/work_orders?department_id=1&priority:gte=0&$limit=2`);
  await h.get(`${M}/work_orders?$cursor=${first.headers.get('x-cursor')}&$page=2`);
  await h.get(`${M}/work_orders?$limit=2`);
  await h.get(`${M}/work_orders/${a.id}`);
  await h.del(`${M}/work_orders/${b.id}`);
  await h.get(`${BASE}/events?$after=0&$limit=100`);
  await h.get(`${BASE}/events?$after=1&collection=work_orders&op=update&op=create`);
}

describeEachDatabase('statements compiled once per shape', (h) => {
  it('compile every shape a workload used to the same SQL with any two sets of values, their values where the cache fills them in', async () => {
    await workload(h());
    // Every shape compiled so far in this file: the service's start and the workload.
    const names = new Set(used.map((u) => u.statement.name));
    for (const name of ['record json by id', 'compiledOnce']) expect(names).toContain(name);
    expect([...names].some((name) => name.startsWith('feed '))).toBe(true);
    expect(used.flatMap(valueProblems)).toEqual([]);
  });
});
