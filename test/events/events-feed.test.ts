import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createEngine, defineResource, string } from '../../engine/index.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem, makeNote, makeWorkOrder, RFC3339_UTC, SERVICE_REQUEST, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';

/** `GET {base}/events` (SPEC 9): the feed as JSON pages, its query, roles, limits and retention. */
const EVENTS = `${BASE}/events`;

const seqOf = (r: { headers: Headers }) => Number(r.headers.get('x-change-seq'));

/** The feed after the current end: writes made by `write` and nothing else. */
async function eventsOf(h: Harness, write: () => Promise<unknown>, query = ''): Promise<any[]> {
  const start = seqOf(await h.get(EVENTS));
  await write();
  const r = await h.get(`${EVENTS}?$after=${start}${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describeEachDatabase('the change feed as JSON pages', (h) => {
  it('answers the events after a position as a bare array in ascending seq, with X-Change-Seq', async () => {
    const start = seqOf(await h().get(EVENTS));
    const wo = await makeWorkOrder(h(), { priority: 1 });
    await h().patch(`${M}/work_orders/${wo.id}`, { priority: 2 });
    await h().del(`${M}/work_orders/${wo.id}`);
    const r = await h().get(`${EVENTS}?$after=${start}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(seqOf(r)).toBe(start + 3);
    expect(r.body.map((e: any) => [e.seq, e.op, e.changed])).toEqual([
      [start + 1, 'create', Object.keys({ ...WORK_ORDER, priority: 0, status: 0, description: 0, service_request_id: 0 })],
      [start + 2, 'update', ['priority']],
      [start + 3, 'delete', ['deleted']],
    ]);
    const last = r.body[2];
    expect(Object.keys(last)).toEqual(['seq', 'at', 'collection', 'id', 'op', 'changed', 'record', 'user']);
    expect(last).toMatchObject({ collection: 'work_orders', id: wo.id, user: 'admin' });
    expect(last.at).toMatch(RFC3339_UTC);
    expect(last.record).toEqual((await h().get(`${M}/work_orders/${wo.id}?$deleted=true`)).body);
    // Nothing after the end: an empty page, the same X-Change-Seq.
    const end = await h().get(`${EVENTS}?$after=${start + 3}`);
    expect([end.body, seqOf(end)]).toEqual([[], start + 3]);
  });

  it('pages with $limit, filters by collection and op (each repeatable)', async () => {
    const events = await eventsOf(h(), async () => {
      const wo = await makeWorkOrder(h());
      await makeNote(h(), wo.id);
      await h().post(`${M}/service_requests`, SERVICE_REQUEST);
      await h().patch(`${M}/work_orders/${wo.id}`, { priority: 7 });
    });
    expect(events.map((e) => [e.collection, e.op])).toEqual([
      ['work_orders', 'create'],
      ['notes', 'create'],
      ['service_requests', 'create'],
      ['work_orders', 'update'],
    ]);
    const after = events[0].seq - 1;
    const seqs = async (q: string) => (await h().get(`${EVENTS}?$after=${after}&${q}`)).body.map((e: any) => e.seq);
    expect(await seqs('$limit=2')).toEqual([events[0].seq, events[1].seq]);
    expect(await seqs('collection=work_orders')).toEqual([events[0].seq, events[3].seq]);
    expect(await seqs('collection=notes&collection=service_requests')).toEqual([events[1].seq, events[2].seq]);
    expect(await seqs('op=update')).toEqual([events[3].seq]);
    expect(await seqs('op=create&collection=work_orders')).toEqual([events[0].seq]);
    // Percent-encoded names, as existing clients send them; over 1000 is served as 1000.
    expect(await seqs('%24limit=5000&op=update')).toEqual([events[3].seq]);
  });

  it('answers 400 naming every bad parameter at once', async () => {
    expectProblem(await h().get(`${EVENTS}?$limit=0&$after=-1&collection=nope&op=upsert&since=3`), 400, [
      '$limit',
      '$after',
      'collection',
      'op',
      'since',
    ]);
    for (const bad of [
      '$limit=-1',
      '$limit=1.5',
      '$limit=x',
      '$limit=',
      '$after=x',
      '$after=1.5',
      '$after=',
      '$cursor=abc',
      '$after=1&$after=2',
    ])
      expectProblem(await h().get(`${EVENTS}?${bad}`), 400, [bad.split('=')[0]!]);
  });

  it('answers 401 without a token, 405 with Allow on other methods, and HEAD like GET', async () => {
    expectProblem(await h().as(null).get(EVENTS), 401);
    const post = await h().request('POST', EVENTS, { body: {} });
    expectProblem(post, 405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const get = await h().get(`${EVENTS}?$limit=1`);
    const head = await h().request('HEAD', `${EVENTS}?$limit=1`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('x-change-seq')).toBe(get.headers.get('x-change-seq'));
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect((await h().request('HEAD', `${EVENTS}?$limit=0`)).status).toBe(400);
  });

  it("leaves out events of collections the caller's roles cannot read", async () => {
    await makeRole(h().service, 'demo.main', 'wo_reader', [{ collection: 'work_orders', action: 'read' }]);
    const limited = h().as((await h().login({ username: 'wendy', roles: ['wo_reader'] })).token);
    const start = seqOf(await limited.get(EVENTS));
    const wo = await makeWorkOrder(h());
    await makeNote(h(), wo.id);
    await h().post(`${M}/service_requests`, SERVICE_REQUEST);
    const r = await limited.get(`${EVENTS}?$after=${start}`);
    expect(r.body.map((e: any) => [e.collection, e.id])).toEqual([['work_orders', wo.id]]);
    expect(seqOf(r)).toBe(start + 3);
    expect((await limited.get(`${EVENTS}?$after=${start}&collection=notes`)).body).toEqual([]);
    const none = h().as((await h().login({ username: 'nora', roles: [] })).token);
    expect((await none.get(`${EVENTS}?$after=${start}`)).body).toEqual([]);
  });

  it('shows a tenant only its own events', async () => {
    const other = h().as((await h().login({ clientDb: 'demo.other', username: 'olga' })).token);
    const before = (await other.get(EVENTS)).body;
    await makeWorkOrder(h());
    const made = await makeWorkOrder(other);
    const after = (await other.get(EVENTS)).body;
    expect(after.slice(before.length).map((e: any) => [e.id, e.user])).toEqual([[made.id, 'olga']]);
  });
});

describeEachDatabase(
  'the change feed counts against the rate limit',
  (h) => {
    it('like any /maintenance call: 429 with Retry-After once the key is over its limit', async () => {
      const as = h().as((await h().login()).token);
      for (let i = 0; i < 3; i++) expect((await as.get(EVENTS)).status).toBe(200);
      const r = await as.get(EVENTS);
      expectProblem(r, 429);
      expect(r.headers.get('retry-after')).toBeTruthy();
    });
  },
  { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '3600' } },
);

const clock = { t: Date.now() };
describeEachDatabase(
  'the change feed keeps events for EVENTS_RETENTION_S',
  (h) => {
    it('removes older events and answers 410 events-gone for a position before them', async () => {
      const wo = await makeWorkOrder(h());
      await h().patch(`${M}/work_orders/${wo.id}`, { priority: 3 });
      const kept = await h().get(`${EVENTS}?$after=0`);
      expect(kept.body.length).toBeGreaterThanOrEqual(2);
      const end = seqOf(kept);
      clock.t += 120_000;
      const gone = await h().get(`${EVENTS}?$after=0`);
      expectProblem(gone, 410);
      expect(gone.body.type).toMatch(/events-gone$/);
      // From the end on, the feed goes on.
      const next = await h().get(`${EVENTS}?$after=${end}`);
      expect([next.status, next.body, seqOf(next)]).toEqual([200, [], end]);
      await h().patch(`${M}/work_orders/${wo.id}`, { priority: 4 });
      expect((await h().get(`${EVENTS}?$after=${end}`)).body.map((e: any) => e.seq)).toEqual([end + 1]);
      expectProblem(await h().get(`${EVENTS}?$after=${end - 1}`), 410);
    });
  },
  { env: { EVENTS_RETENTION_S: '60' }, now: () => clock.t },
);

describe('the change feed of an embedded engine without authentication', () => {
  it('is served beside the collections, events with user null', async () => {
    const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true }) } });
    const engine = createEngine({
      db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
      resources: [tasks],
    });
    await engine.migrate();
    const created = await engine.fetch(
      new Request(`http://x${M}/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"oil"}' }),
    );
    expect(created.status).toBe(201);
    const r = await engine.fetch(new Request(`http://x${EVENTS}`));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-change-seq')).toBe('1');
    const [e] = (await r.json()) as any[];
    expect(e).toMatchObject({ seq: 1, collection: 'tasks', op: 'create', changed: ['title'], user: null, record: await created.json() });
    await engine.close();
  });
});
