import { expect, it } from 'vitest';
import { trackShapes, valueProblems } from '../../engine/compiled-queries.ts';
import { makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';

// Before any statement compiles: every shape compiled in this file is noted.
const used = trackShapes();

// The service's clock: moved on past the time a cursor's expiry waits before it is moved.
let now = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** Requests that reach each kind of statement the engine compiles once: writes, reads, searches, the feed, batches. */
async function workload(h: Harness) {
  // Enough records that a lazy cursor's ids fill several chunk rows.
  await seedWorkOrders((await h.service.tenants.get('demo.main'))!, h.service.engine.registry, 5000);
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
  // A body with problems in a transaction: the write reads its row first (and answers 422).
  await h.request('PATCH', `${M}/work_orders/${a.id}`, { body: { priority: 'high' }, headers: { 'idempotency-key': 'k3' } });
  await h.request('POST', `${BASE}/batch`, {
    body: {
      operations: [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'c' } },
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'd' } },
        { method: 'PATCH', path: `/maintenance/work_orders/${a.id}`, body: { priority: 5 } },
      ],
    },
  });
  const search = 'priority:gte=0&$orderBy=priority:desc&$limit=2';
  const first = await h.get(`${M}/work_orders?${search}`);
  now += 2 * MINUTE;
  await h.get(`${M}/work_orders?${search}&$cursor=${first.headers.get('x-cursor')}&$page=2`);
  await h.get(`${M}/work_orders?department_id=1&priority:gte=0&$limit=2&$page=2`);
  // Every snapshot strategy's statements: a later page in another order, a whole table's, shaped records.
  expect((await h.get(`${M}/work_orders?priority:gte=0&$orderBy=priority:desc&$limit=2&$page=3`)).status).toBe(200);
  const shaped = await h.get(`${BASE}/bulk/maintenance/work_orders?priority:gte=0&$fields=description&$linked=Notes&$limit=2&$page=2`);
  expect(shaped.status).toBe(200);
  await h.get(`${M}/work_orders/${a.id}/notes`);
  await h.get(`${M}/work_orders?$limit=2`);
  await h.get(`${M}/work_orders/${a.id}`);
  await h.del(`${M}/work_orders/${b.id}`);
  await h.get(`${BASE}/events?$after=0&$limit=100`);
  await h.get(`${BASE}/events?$after=1&collection=work_orders&op=update&op=create`);
}

/** Statements the workload compiles on every database, and those one database's snapshots use. */
const EVERY = ['record json by id', 'row by id', 'row for write', 'idempotency kept', 'idempotency keep'];
const CURSORS = ['cursor page', 'cursor touch', 'cursor fill chunks', 'cursor fill head'];
const ONLY: Record<string, string[]> = {
  sqlite: ['snapshot chunks', 'lazy cursor head', 'snapshot pack', 'snapshot ranged', 'snapshot lazy'],
  postgres: ['snapshot packed', 'snapshot deltas ids', 'snapshot deltas chunks', 'snapshot ranged', 'snapshot lazy'],
};

describeEachDatabase(
  'statements compiled once per shape',
  (h) => {
    it('compile every shape a workload used to the same SQL with any two sets of values, their values where the cache fills them in', async () => {
      const from = used.length;
      await workload(h());
      const names = new Set(used.slice(from).map((u) => u.statement.name));
      for (const name of [...EVERY, ...CURSORS, ...ONLY[h().db]!]) expect(names).toContain(name);
      expect([...names].some((name) => name.startsWith('feed '))).toBe(true);
      // Every shape compiled so far in this file: the service's start and the workload.
      expect(used.flatMap(valueProblems)).toEqual([]);
    });
  },
  { now: () => now },
);
