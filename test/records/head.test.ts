import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../server/node-server.ts';
import { expectProblem, makeNote, makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, startHarness, type Harness, type Reply } from '../support/harness.ts';

/** Headers that differ between any two calls, or with the body (a new cursor per list, a new request id). */
const VOLATILE = new Set([
  'x-request-id',
  'x-cursor',
  'link',
  'content-length',
  'x-ratelimit-remaining',
  'ratelimit',
  'x-ratelimit-reset',
  'retry-after',
]);
const stable = (r: Reply) => Object.fromEntries([...r.headers.entries()].filter(([k]) => !VOLATILE.has(k)));

async function expectHeadLikeGet(h: Harness, path: string, token?: string | null): Promise<Reply> {
  const get = await h.request('GET', path, { token });
  const head = await h.request('HEAD', path, { token });
  expect(head.status, `HEAD ${path}`).toBe(get.status);
  expect(head.text, `HEAD ${path}`).toBe('');
  expect(stable(head), `HEAD ${path}`).toEqual(stable(get));
  expect([...head.headers.keys()].sort(), `HEAD ${path}`).toEqual([...get.headers.keys()].filter((k) => k !== 'content-length').sort());
  return head;
}

describeEachDatabase('HEAD on every GET path', (h) => {
  let wo: Record<string, any>;
  let gone: Record<string, any>;
  beforeAll(async () => {
    wo = await makeWorkOrder(h(), { description: 'head' });
    await makeNote(h(), wo.id);
    gone = await makeWorkOrder(h());
    expect((await h().del(`${M}/work_orders/${gone.id}`)).status).toBe(204);
  });

  it('answers collections, records and child lists with the status and headers of GET, and no body', async () => {
    for (const path of [
      `${M}/work_orders`,
      `${M}/work_orders?status=open&$limit=1`,
      `${M}/notes`,
      `${M}/work_orders/${wo.id}`,
      `${M}/work_orders/${wo.id}/notes`,
    ]) {
      const head = await expectHeadLikeGet(h(), path);
      expect(head.status, path).toBe(200);
    }
    const list = await h().request('HEAD', `${M}/work_orders`);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.headers.get('x-cursor')).toMatch(/^\S+$/);
  });

  it('answers the service paths like GET', async () => {
    for (const path of [`${BASE}/openapi.json`, `${BASE}/docs`, '/healthz', '/readyz']) {
      expect((await expectHeadLikeGet(h(), path, null)).status, path).toBe(200);
    }
    // /metrics: its body (and so its length) changes with every request; status and type do not.
    const metrics = await h().request('HEAD', '/metrics', { token: null });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toBe('');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('answers errors like GET: 401, 404, $deleted', async () => {
    expect((await expectHeadLikeGet(h(), `${M}/work_orders`, null)).headers.get('www-authenticate')).toBe('Bearer');
    expect((await expectHeadLikeGet(h(), `${M}/work_orders/987654`)).status).toBe(404);
    expect((await expectHeadLikeGet(h(), `${M}/work_orders/${gone.id}`)).status).toBe(404);
    expect((await expectHeadLikeGet(h(), `${M}/work_orders/${gone.id}?$deleted=true`)).status).toBe(200);
    expect((await expectHeadLikeGet(h(), `${M}/work_orders?nope=1`)).status).toBe(400);
    expect((await expectHeadLikeGet(h(), `${M}/nothing_here`)).status).toBe(404);
  });

  it('of a list makes a cursor as GET does, and nothing else', async () => {
    const before = await h().get(`${M}/work_orders?$deleted=true`);
    const head = await h().request('HEAD', `${M}/work_orders?$deleted=true&$limit=1`);
    const cursor = head.headers.get('x-cursor')!;
    const page = await h().get(`${M}/work_orders?$cursor=${cursor}&$page=2`);
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    const after = await h().get(`${M}/work_orders?$deleted=true`);
    expect(after.headers.get('x-total')).toBe(before.headers.get('x-total'));
  });

  it('is listed in Allow beside GET', async () => {
    const r = await h().request('DELETE', `${M}/work_orders`);
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await h().request('POST', `${M}/work_orders/${wo.id}`, { body: {} })).headers.get('allow')).toBe(
      'GET, HEAD, PUT, PATCH, DELETE',
    );
  });
});

describe('HEAD over a socket', () => {
  let started: Awaited<ReturnType<typeof startHarness>>;
  let l: Listening;
  beforeAll(async () => {
    started = await startHarness('sqlite', { env: { PORT: '0' } });
    l = await listen(started.harness.service);
    await makeWorkOrder(started.harness);
  });
  afterAll(async () => {
    await l?.stop();
    await started?.cleanup();
  });

  it('sends the headers of GET and no body', async () => {
    const url = `http://127.0.0.1:${l.port}${M}/work_orders`;
    const headers = started.harness.authHeaders();
    const res = await fetch(url, { method: 'HEAD', headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('');
  });
});
