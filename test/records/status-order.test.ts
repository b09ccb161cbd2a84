import { beforeAll, expect, it } from 'vitest';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { expectProblem, makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const HUGE = JSON.stringify({ ...WORK_ORDER, description: 'x'.repeat(1024 * 1024 + 10) });
const allowOf = (r: { headers: Headers }) => (r.headers.get('allow') ?? '').split(/,\s*/).sort();

describeEachDatabase('paths, methods and the order of statuses', (h) => {
  let wo: Record<string, any>;
  let note: Record<string, any>;
  let deleted: Record<string, any>;
  beforeAll(async () => {
    wo = await makeWorkOrder(h());
    note = await makeNote(h(), wo.id);
    deleted = await makeWorkOrder(h());
    expect((await h().del(`${M}/work_orders/${deleted.id}`)).status).toBe(204);
  });

  it('404 for unknown collections, also for methods no path would allow', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expectProblem(await h().request(method, `${M}/widgets`), 404);
      expectProblem(await h().request(method, `${M}/widgets/1`), 404);
    }
    expectProblem(await h().get(`${M}`), 404);
    expectProblem(await h().get(`${M}/`), 404);
    expectProblem(await h().get(`${M}/Work_Orders`), 404);
    expectProblem(await h().post(`${M}/widgets`, WORK_ORDER), 404);
  });

  it('404 for unknown records and ids that are not positive integers', async () => {
    expectProblem(await h().get(`${M}/work_orders/987654`), 404);
    expectProblem(await h().get(`${M}/notes/987654`), 404);
    expectProblem(await h().get(`${M}/work_orders/${deleted.id}`), 404);
    for (const id of ['abc', '1.5', '0', '-1', '1e3', '%20', `${wo.id}abc`, '99999999999999999999', '0x1']) {
      expectProblem(await h().get(`${M}/work_orders/${id}`), 404);
      expectProblem(await h().request('PATCH', `${M}/work_orders/${id}`, { body: { priority: 1 } }), 404);
    }
  });

  it('404 for paths deeper than /collection/id/child/child_id and for unknown children', async () => {
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/notes/${note.id}/x`), 404);
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/notes/0`), 404);
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/widgets`), 404);
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/service_requests`), 404);
    expectProblem(await h().get(`${M}/notes/${note.id}/work_orders`), 404);
    expectProblem(await h().get(`${M}/service_requests/1/notes`), 404);
    expectProblem(await h().get(`${M}/work_orders/abc/notes`), 404);
    expectProblem(await h().get(`${M}/work_orders/${wo.id}/notes/`), 404);
  });

  it('404 with a problem body outside the collections', async () => {
    expectProblem(await h().get(`${BASE}/nothing-here`), 404);
    expectProblem(await h().get('/nothing-here'), 404);
    expectProblem(await h().get(`${BASE}/maintenancex/work_orders`), 404);
  });

  it('405 with Allow for a wrong method on a known path', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const r = await h().request(method, `${M}/work_orders`, { body: WORK_ORDER });
      expectProblem(r, 405);
      expect(allowOf(r)).toEqual(['GET', 'HEAD', 'POST']);
      const child = await h().request(method, `${M}/work_orders/${wo.id}/notes`, { body: { note: 'x' } });
      expectProblem(child, 405);
      expect(allowOf(child)).toEqual(['GET', 'HEAD', 'POST']);
    }
    const post = await h().post(`${M}/work_orders/${wo.id}`, WORK_ORDER);
    expectProblem(post, 405);
    expect(allowOf(post)).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
    const options = await h().request('OPTIONS', `${M}/notes/${note.id}`);
    expectProblem(options, 405);
    expect(allowOf(options)).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });

  it('405 comes before 404 for the record and the parent', async () => {
    expectProblem(await h().post(`${M}/work_orders/987654`, WORK_ORDER), 405);
    expectProblem(await h().request('PUT', `${M}/work_orders/987654/notes`, { body: { note: 'x' } }), 405);
    expectProblem(await h().request('DELETE', `${M}/work_orders/${deleted.id}/notes`), 405);
  });

  it('404 for the record comes before 415, 413, 400 and 422', async () => {
    for (const id of [987654, deleted.id]) {
      const url = `${M}/work_orders/${id}`;
      expectProblem(await h().request('PATCH', url, { raw: '{"priority":1}', headers: { 'content-type': 'text/plain' } }), 404);
      expectProblem(await h().request('PUT', url, { raw: JSON.stringify(WORK_ORDER) }), 404);
      expectProblem(await h().request('PATCH', url, { raw: HUGE, headers: JSON_HEADERS }), 404);
      expectProblem(await h().request('PUT', url, { raw: '{"department_id":', headers: JSON_HEADERS }), 404);
      expectProblem(await h().request('PATCH', `${url}?x=1`, { body: { priority: 1 } }), 404);
      expectProblem(await h().request('PATCH', url, { body: { colour: 'red', id: 1 } }), 404);
      expectProblem(await h().request('DELETE', `${url}?x=1`), 404);
      expectProblem(await h().get(`${url}?x=1`), 404);
    }
  });

  it('404 for the parent comes before 415, 413, 400 and 422', async () => {
    for (const id of [987654, deleted.id]) {
      const url = `${M}/work_orders/${id}/notes`;
      expectProblem(await h().request('POST', url, { raw: '{"note":"x"}', headers: { 'content-type': 'text/plain' } }), 404);
      expectProblem(await h().request('POST', url, { raw: HUGE, headers: JSON_HEADERS }), 404);
      expectProblem(await h().request('POST', url, { raw: '{', headers: JSON_HEADERS }), 404);
      expectProblem(await h().request('POST', `${url}?x=1`, { body: { note: 'x' } }), 404);
      expectProblem(await h().request('POST', url, { body: { note: 5 } }), 404);
      expectProblem(await h().get(`${url}?colour=red`), 404);
    }
  });

  it('415 comes before 413, 413 before 400, 400 before 422', async () => {
    const url = `${M}/work_orders`;
    expectProblem(await h().request('POST', url, { raw: HUGE, headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await h().request('POST', `${url}?x=1`, { raw: '{', headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await h().request('POST', url, { raw: HUGE.slice(0, -1), headers: JSON_HEADERS }), 413);
    expectProblem(await h().request('POST', `${url}?x=1`, { raw: HUGE, headers: JSON_HEADERS }), 413);
    expectProblem(await h().request('POST', `${url}?x=1`, { body: { colour: 'red' } }), 400, ['x']);
    expectProblem(await h().request('PATCH', `${url}/${wo.id}?x=1`, { body: { colour: 'red' } }), 400, ['x']);
    expect((await h().get(`${url}/${wo.id}`)).body).toEqual(wo);
  });
});

describeEachDatabase('the conditional statuses in the order of statuses', (h) => {
  const stale = '"987654"';
  let url: string;
  beforeAll(async () => {
    url = `${M}/work_orders/${(await makeWorkOrder(h())).id}`;
  });
  const withIfMatch = (
    tag: string,
    method: string,
    target: string,
    init: { raw?: string; body?: unknown; headers?: Record<string, string> },
  ) => h().request(method, target, { ...init, headers: { ...init.headers, 'if-match': tag } });

  it('404 for the record comes before 412', async () => {
    expectProblem(await withIfMatch(stale, 'PATCH', `${M}/work_orders/987654`, { body: { priority: 1 } }), 404);
    expectProblem(await withIfMatch(stale, 'DELETE', `${M}/work_orders/987654`, {}), 404);
  });

  it('412 comes before 415, 413, 400 and 422', async () => {
    expectProblem(await withIfMatch(stale, 'PATCH', url, { raw: '{"priority":1}', headers: { 'content-type': 'text/plain' } }), 412);
    expectProblem(await withIfMatch(stale, 'PUT', url, { raw: HUGE, headers: JSON_HEADERS }), 412);
    expectProblem(await withIfMatch(stale, 'PATCH', url, { raw: '{', headers: JSON_HEADERS }), 412);
    expectProblem(await withIfMatch(stale, 'PATCH', `${url}?x=1`, { body: { priority: 1 } }), 412);
    expectProblem(await withIfMatch(stale, 'DELETE', `${url}?x=1`, {}), 412);
    expectProblem(await withIfMatch(stale, 'PATCH', url, { body: { colour: 'red' } }), 412);
  });

  it('a malformed If-Match (400) comes after 415 and 413, and before 422', async () => {
    expectProblem(await withIfMatch('nope', 'PATCH', url, { raw: '{"priority":1}', headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await withIfMatch('nope', 'PATCH', url, { raw: HUGE, headers: JSON_HEADERS }), 413);
    expectProblem(await withIfMatch('nope', 'PATCH', url, { body: { colour: 'red' } }), 400, ['If-Match']);
  });
});

describeEachDatabase('the Idempotency-Key checks in the order of statuses', (h) => {
  const withKey = (key: string, init: { raw?: string; body?: unknown; headers?: Record<string, string> }, path = `${M}/work_orders`) =>
    h().request('POST', path, { ...init, headers: { ...init.headers, 'idempotency-key': key } });

  it('a malformed key (400) comes after 404 for the parent, 415 and 413, and before 422', async () => {
    expectProblem(await withKey('has space', { body: { note: 'x' } }, `${M}/work_orders/987654/notes`), 404);
    expectProblem(await withKey('has space', { raw: '{}', headers: { 'content-type': 'text/plain' } }), 415);
    expectProblem(await withKey('has space', { raw: HUGE, headers: JSON_HEADERS }), 413);
    expectProblem(await withKey('has space', { body: { colour: 'red' } }), 400, ['Idempotency-Key']);
  });

  it('a reused key (422 idempotency-key-reused) comes before 422 for the record', async () => {
    expect((await withKey('order-1', { body: WORK_ORDER })).status).toBe(201);
    const r = await withKey('order-1', { body: { colour: 'red' } });
    expectProblem(r, 422);
    expect(r.body.type).toMatch(/idempotency-key-reused$/);
  });
});

describeEachDatabase(
  '428 in the order of statuses',
  (h) => {
    let reader: Harness;
    beforeAll(async () => {
      reader = h().as((await h().login({ username: 'rita', roles: ['reader'] })).token);
    });

    it('405 and 403 come before 428, and 428 before 404 for the record and everything after', async () => {
      expectProblem(await h().post(`${M}/work_orders/987654`, WORK_ORDER), 405);
      expectProblem(await reader.patch(`${M}/work_orders/987654`, { priority: 1 }), 403);
      expectProblem(await h().patch(`${M}/work_orders/987654`, { priority: 1 }), 428);
      expectProblem(await h().request('PUT', `${M}/work_orders/987654`, { raw: '{', headers: { 'content-type': 'text/plain' } }), 428);
      expectProblem(await h().del(`${M}/work_orders/987654`), 428);
    });
  },
  { env: { REQUIRE_IF_MATCH: 'true' } },
);
