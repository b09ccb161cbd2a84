import { expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';

const BATCH = `${BASE}/batch`;
const RESOURCES = [serviceRequests, workOrders, notes, inspections];

type Op = { method: string; path: string; body?: unknown; if_match?: string };
const batch = (h: Harness, operations: unknown, headers: Record<string, string> = {}) =>
  h.request('POST', BATCH, { body: { operations }, headers });

/** Every row of every collection (deleted ones too) and the change feed: what a failed batch must leave as it was. */
async function snapshot(h: Harness) {
  const t = (await h.service.tenants.get('demo.main'))!;
  const rows: Record<string, unknown[]> = {};
  for (const table of ['work_orders', 'notes', 'inspections', 'service_requests'])
    rows[table] = await t.db.selectFrom(table).selectAll().orderBy('id').execute();
  const feed = await h.get(`${BASE}/events?$limit=1000`);
  return { rows, seq: feed.headers.get('x-change-seq'), events: feed.body };
}

describeEachDatabase(
  'POST {base}/batch (SPEC 10)',
  (h) => {
    it('runs creates, patches, puts and deletes in order, answering each with its status, body, location and ETag', async () => {
      const a = await makeWorkOrder(h(), { description: 'a' });
      const b = await makeWorkOrder(h(), { description: 'b' });
      const etagA = (await h().get(`${M}/work_orders/${a.id}`)).headers.get('etag')!;
      const r = await batch(h(), [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'new' } },
        { method: 'PATCH', path: `/maintenance/work_orders/${a.id}`, body: { priority: 3 }, if_match: etagA },
        { method: 'PUT', path: `${M}/work_orders/${b.id}`, body: { ...WORK_ORDER, description: 'replaced' } },
        { method: 'POST', path: `/maintenance/work_orders/${a.id}/notes`, body: { note: 'under a' } },
        { method: 'DELETE', path: `/maintenance/work_orders/${b.id}` },
      ]);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.body.map((o: any) => o.status)).toEqual([201, 200, 200, 201, 204]);
      const [created, patched, put, note, deleted] = r.body;
      expect(created.body).toMatchObject({ description: 'new' });
      expect(created.location).toBe(`${M}/work_orders/${created.body.id}`);
      expect(patched.body).toMatchObject({ id: a.id, priority: 3, description: 'a' });
      expect(put.body).toMatchObject({ id: b.id, description: 'replaced' });
      expect(note.body).toMatchObject({ work_order_id: a.id, note: 'under a' });
      expect(note.location).toBe(`${M}/notes/${note.body.id}`);
      expect(deleted).toEqual({ status: 204 });
      // Each ETag is the one the record now has.
      for (const o of [created, patched, note])
        expect(o.etag).toBe((await h().get(`${M}/${o === note ? 'notes' : 'work_orders'}/${o.body.id}`)).headers.get('etag'));
      expect(patched.etag).not.toBe(etagA);
      expect((await h().get(`${M}/work_orders/${b.id}`)).status).toBe(404);
    });

    it('appends one event per operation, in order, each with the record as its own operation left it (also two writes of one record)', async () => {
      const a = await makeWorkOrder(h(), { description: 'a' });
      const b = await makeWorkOrder(h(), { description: 'b' });
      const after = (await h().get(`${BASE}/events`)).headers.get('x-change-seq');
      const r = await batch(h(), [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'new', priority: 1 } },
        { method: 'PATCH', path: `/maintenance/work_orders/${a.id}`, body: { priority: 3 } },
        { method: 'PATCH', path: `/maintenance/work_orders/${b.id}`, body: { priority: 3 } },
        { method: 'PATCH', path: `/maintenance/work_orders/${a.id}`, body: { priority: 4 } },
        { method: 'DELETE', path: `/maintenance/work_orders/${a.id}` },
      ]);
      expect(r.status, r.text).toBe(200);
      const feed = await h().get(`${BASE}/events?$after=${after}`);
      const created = r.body[0].body.id;
      expect(feed.body.map((e: any) => [e.op, e.id, e.record.priority, e.record.deleted])).toEqual([
        ['create', created, 1, false],
        ['update', a.id, 3, false],
        ['update', b.id, 3, false],
        ['update', a.id, 4, false],
        ['delete', a.id, 4, true],
      ]);
      expect(new Set(feed.body.map((e: any) => e.seq)).size).toBe(5);
    });

    it('an operation that fails last (422, 404, 412, 403) leaves the database and the feed as they were; its status names the operation', async () => {
      const wo = await makeWorkOrder(h());
      const etag = (await h().get(`${M}/work_orders/${wo.id}`)).headers.get('etag')!;
      const first: Op[] = [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'never' } },
        { method: 'PATCH', path: `/maintenance/work_orders/${wo.id}`, body: { priority: 9 }, if_match: etag },
        { method: 'POST', path: `/maintenance/work_orders/${wo.id}/notes`, body: { note: 'never' } },
      ];
      await makeRole(h().service, 'demo.main', 'wo_writer', [
        { collection: 'work_orders', action: 'create' },
        { collection: 'work_orders', action: 'update' },
        { collection: 'notes', action: 'create' },
      ]);
      const writer = h().as((await h().login({ username: 'walt', roles: ['wo_writer'] })).token);
      const cases: [Harness, Op, number][] = [
        [h(), { method: 'POST', path: '/maintenance/work_orders', body: { department_id: 'x' } }, 422],
        [h(), { method: 'PATCH', path: '/maintenance/work_orders/999999', body: { priority: 1 } }, 404],
        [h(), { method: 'DELETE', path: `/maintenance/work_orders/${wo.id}`, if_match: etag }, 412], // the PATCH before moved the ETag
        [writer, { method: 'DELETE', path: `/maintenance/work_orders/${wo.id}` }, 403],
      ];
      for (const [as, last, status] of cases) {
        const before = await snapshot(h());
        const r = await batch(as, [...first, last]);
        expectProblem(r, status);
        expect(r.body.errors.length).toBeGreaterThan(0);
        for (const e of r.body.errors) expect(e.operation).toBe(3);
        expect(await snapshot(h())).toEqual(before);
      }
    });

    it('creates that follow each other (written together) keep the operations order: ids, answers, events', async () => {
      const wo = await makeWorkOrder(h());
      const sr = (await h().post(`${M}/service_requests`, { description: 'linked' })).body;
      const before = (await h().get(`${BASE}/events`)).headers.get('x-change-seq');
      const wos = '/maintenance/work_orders';
      const ops: Op[] = [
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r1' } },
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r2', priority: 4 } },
        { method: 'POST', path: '/maintenance/notes', body: { note: 'n1', work_order_id: wo.id } }, // a link: alone
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r3' } },
        { method: 'POST', path: '/maintenance/service_requests', body: { description: 's1' } }, // another collection
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r4', service_request_id: sr.id } }, // a link
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r5', status: 'closed' } },
        { method: 'PATCH', path: `${wos}/${wo.id}`, body: { priority: 7 } },
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'r6' } },
        { method: 'POST', path: `${wos}/${wo.id}/notes`, body: { note: 'n2' } }, // under a parent path
      ];
      const r = await batch(h(), ops);
      expect(r.status, r.text).toBe(200);
      expect(r.body.map((o: any) => o.status)).toEqual([201, 201, 201, 201, 201, 201, 201, 200, 201, 201]);
      const label = (o: any) => o.body.description ?? o.body.note;
      expect(r.body.filter((_: unknown, i: number) => i !== 7).map(label)).toEqual(['r1', 'r2', 'n1', 'r3', 's1', 'r4', 'r5', 'r6', 'n2']);
      expect(r.body[7].body.priority).toBe(7);
      const made = r.body.filter((o: any) => o.status === 201);
      for (const o of made) {
        const read = await h().get(o.location);
        expect(read.body).toEqual(o.body);
        expect(read.headers.get('etag')).toBe(o.etag);
      }
      const workOrderIds = r.body.filter((o: any, i: number) => o.status === 201 && ops[i]!.path === wos).map((o: any) => o.body.id);
      expect(workOrderIds).toEqual([...workOrderIds].sort((a, b) => a - b));
      const events = (await h().get(`${BASE}/events?$after=${before}`)).body;
      expect(events.map((e: any) => [e.collection, e.id])).toEqual(
        r.body.map((o: any, i: number) => [
          ops[i]!.path.includes('notes') ? 'notes' : ops[i]!.path.includes('service') ? 'service_requests' : 'work_orders',
          o.body.id,
        ]),
      );
      for (const [i, e] of events.entries()) expect(e.record).toEqual(r.body[i].body);
    });

    it('a create that fails inside a run of creates names its own operation; nothing is written', async () => {
      const before = await snapshot(h());
      const wos = '/maintenance/work_orders';
      const r = await batch(h(), [
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'never 1' } },
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'never 2' } },
        { method: 'POST', path: wos, body: { ...WORK_ORDER, priority: 'high' } },
        { method: 'POST', path: wos, body: { ...WORK_ORDER, description: 'never 3' } },
      ]);
      expectProblem(r, 422);
      for (const e of r.body.errors) expect(e.operation).toBe(2);
      expect(await snapshot(h())).toEqual(before);
    });

    it('0 or 101 operations, a body that is not JSON, and malformed operations are refused, naming what is wrong', async () => {
      const before = await snapshot(h());
      const one = { method: 'POST', path: '/maintenance/work_orders', body: WORK_ORDER };
      for (const ops of [[], Array.from({ length: 101 }, () => one)]) {
        const r = await batch(h(), ops);
        expectProblem(r, 422);
        expect(r.body.errors[0].field).toBe('operations');
      }
      expectProblem(await h().request('POST', BATCH, { raw: '{"operations": [', headers: { 'content-type': 'application/json' } }), 400);
      expectProblem(await h().request('POST', BATCH, { body: [one] }), 422);
      const bad = await batch(h(), [
        one,
        one,
        { method: 'GET', path: '/maintenance/work_orders' },
        { path: 7, method: 'PATCH', body: {} },
        { method: 'PATCH', path: '/maintenance/work_orders/1', body: {}, if_match: 'not-a-tag' },
      ]);
      expectProblem(bad, 422);
      expect(bad.body.errors.map((e: any) => [e.field, e.operation])).toEqual([
        ['operations[2].method', 2],
        ['operations[3].path', 3],
        ['operations[4].if_match', 4],
      ]);
      const nowhere = await batch(h(), [one, { method: 'POST', path: '/elsewhere/work_orders', body: WORK_ORDER }]);
      expectProblem(nowhere, 404);
      expect(nowhere.body.errors[0].operation).toBe(1);
      expectProblem(await batch(h(), [{ method: 'DELETE', path: '/maintenance/work_orders' }]), 405);
      const get = await h().get(BATCH);
      expectProblem(get, 405);
      expect(get.headers.get('allow')).toBe('POST');
      expect(await snapshot(h())).toEqual(before);
    });

    it('each operation needs its own permission', async () => {
      await makeRole(h().service, 'demo.main', 'wo_creator', [{ collection: 'work_orders', action: 'create' }]);
      const creator = h().as((await h().login({ username: 'cora', roles: ['wo_creator'] })).token);
      const create = { method: 'POST', path: '/maintenance/work_orders', body: WORK_ORDER };
      expect((await batch(creator, [create, create])).status).toBe(200);
      const before = await snapshot(h());
      const r = await batch(creator, [create, { method: 'POST', path: '/maintenance/service_requests', body: { description: 'x' } }]);
      expectProblem(r, 403);
      expect(r.body.errors).toEqual([expect.objectContaining({ operation: 1 })]);
      expect(await snapshot(h())).toEqual(before);
    });

    it('an Idempotency-Key on a batch replays its answer and does nothing again', async () => {
      const ops = [
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'keyed batch' } },
        { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'keyed batch' } },
      ];
      const first = await batch(h(), ops, { 'idempotency-key': 'batch-1' });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotency-replayed')).toBeNull();
      const before = await snapshot(h());
      const again = await batch(h(), ops, { 'idempotency-key': 'batch-1' });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await snapshot(h())).toEqual(before);
      const reused = await batch(h(), ops.slice(1), { 'idempotency-key': 'batch-1' });
      expectProblem(reused, 422);
      expect(reused.body.type).toMatch(/idempotency-key-reused$/);
    });

    it('a move a state field does not allow, inside a batch, is 409 and nothing is written', async () => {
      const { body: insp } = await h().post(`${M}/inspections`, { site: 'plant 1', inspector: 'ana' });
      const before = await snapshot(h());
      const r = await batch(h(), [
        { method: 'PATCH', path: `/maintenance/inspections/${insp.id}`, body: { findings: 'none' } },
        { method: 'PATCH', path: `/maintenance/inspections/${insp.id}`, body: { status: 'done' } },
      ]);
      expectProblem(r, 409, ['status']);
      expect(r.body.errors[0].operation).toBe(1);
      expect(await snapshot(h())).toEqual(before);
      // The same moves one at a time in a batch: allowed in order.
      const ok = await batch(h(), [
        { method: 'PATCH', path: `/maintenance/inspections/${insp.id}`, body: { status: 'in_progress' } },
        { method: 'PATCH', path: `/maintenance/inspections/${insp.id}`, body: { status: 'done', findings: 'fine' } },
      ]);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body[1].body.status).toBe('done');
    });

    it('is described in the OpenAPI document', async () => {
      const doc = (await h().get(`${BASE}/openapi.json`)).body;
      const post = doc.paths[BATCH].post;
      expect(post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/batch.request');
      expect(doc.components.schemas['batch.request'].properties.operations.maxItems).toBe(100);
      expect(doc.components.schemas.Problem.properties.errors.items.properties.operation.type).toBe('integer');
    });

    it('with REQUIRE_IF_MATCH, a PATCH, PUT or DELETE operation without if_match is 428 naming it', async () => {
      const started = await startHarness(h().db, { resources: RESOURCES, env: { REQUIRE_IF_MATCH: 'true' } });
      try {
        const as = started.harness;
        const wo = await makeWorkOrder(as);
        const etag = (await as.get(`${M}/work_orders/${wo.id}`)).headers.get('etag')!;
        const create = { method: 'POST', path: '/maintenance/work_orders', body: WORK_ORDER };
        const r = await batch(as, [create, { method: 'DELETE', path: `/maintenance/work_orders/${wo.id}` }]);
        expectProblem(r, 428);
        expect(r.body.errors).toEqual([expect.objectContaining({ field: 'operations[1].if_match', operation: 1 })]);
        const ok = await batch(as, [create, { method: 'DELETE', path: `/maintenance/work_orders/${wo.id}`, if_match: etag }]);
        expect(ok.body.map((o: any) => o.status)).toEqual([201, 204]);
      } finally {
        await started.stop();
      }
    });

    it('counts each operation against the rate limit: a batch larger than what is left is 429 and does nothing', async () => {
      const started = await startHarness(h().db, { resources: RESOURCES, env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_S: '3600' } });
      try {
        const as = started.harness.as((await started.harness.login()).token);
        const create = { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, department_id: 4343 } };
        const ok = await batch(as, [create, create, create]);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('x-ratelimit-remaining')).toBe('2');
        const refused = await batch(as, [create, create, create]);
        expectProblem(refused, 429);
        const other = started.harness.as((await started.harness.login()).token);
        expect((await other.get(`${M}/work_orders?department_id=4343`)).body).toHaveLength(3);
      } finally {
        await started.stop();
      }
    });
  },
  { resources: RESOURCES },
);
