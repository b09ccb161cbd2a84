import { describe, expect, it } from 'vitest';
import { NotFound, PreconditionFailed, TooManyRequests, Unprocessable, etagOf, type Tokens } from '../../client/index.ts';
import { DATABASES } from '../support/harness.ts';
import { servedService } from '../support/client-service.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/** A fetch that counts what it sends, by method and path. */
function counting() {
  const sent: string[] = [];
  const f: typeof fetch = (input, init) => {
    sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname.replace(/^\/v4_server\/external\/v1\//, '')}`);
    return fetch(input, init);
  };
  return { sent, fetch: f };
}

for (const db of DATABASES) {
  describe(`the client against the service [${db}]`, () => {
    const served = servedService(db);

    it('creates, reads and writes records; PATCH sends If-Match from the record given, and a stale one is a typed 412', async () => {
      const { sent, fetch } = counting();
      const client = served().client({ fetch });
      const orders = client.collection('work_orders');
      const created = await orders.create({ ...WORK_ORDER, priority: 1 });
      expect(created).toMatchObject({ ...WORK_ORDER, priority: 1, status: 'open', deleted: false });
      expect(etagOf(created)).toBe('"1"');
      const read = await orders.get(created.id);
      expect(read).toEqual(created);
      const changed = await orders.patch(read, { priority: 2 });
      expect(changed.priority).toBe(2);
      const stale = await orders.patch(read, { priority: 3 }).catch((e) => e);
      expect(stale).toBeInstanceOf(PreconditionFailed);
      expect(stale.status).toBe(412);
      expect(stale.etag).toBe('"2"');
      expect(stale.problem.type).toBe('urn:maintenance-records:problem:precondition-failed');
      expect(stale.retried).toBe(false);
      // Turned off, the same record's write goes through.
      expect((await orders.patch(read, { priority: 3 }, { ifMatch: false })).priority).toBe(3);
      const replaced = await orders.put(await orders.get(created.id), { ...WORK_ORDER, description: 'whole' });
      expect(replaced).toMatchObject({ priority: null, description: 'whole' });
      await orders.delete(replaced);
      expect(await orders.get(created.id).catch((e) => e)).toBeInstanceOf(NotFound);
      // A 412 and a 404 are not retried: one request each.
      expect(sent.filter((s) => s.startsWith('PATCH')).length).toBe(3);
    });

    it('a read with If-None-Match answers the same record object on 304; a write changes its tag', async () => {
      const orders = served().client().collection('work_orders');
      const record = await orders.get((await orders.create(WORK_ORDER)).id);
      expect(await orders.get(record.id, { ifNoneMatch: record })).toBe(record);
      await orders.patch(record, { priority: 9 });
      const fresh = await orders.get(record.id, { ifNoneMatch: record });
      expect(fresh).not.toBe(record);
      expect(fresh.priority).toBe(9);
    });

    it('every write carries an Idempotency-Key of its own; one given is sent, and replayed answers are the same record', async () => {
      const orders = served().client().collection('work_orders');
      const a = await orders.create(WORK_ORDER, { idempotencyKey: 'client-key-1' });
      const b = await orders.create(WORK_ORDER, { idempotencyKey: 'client-key-1' });
      expect(b).toEqual(a);
      const c = await orders.create(WORK_ORDER);
      expect(c.id).not.toBe(a.id);
      const reused = await orders.create({ ...WORK_ORDER, priority: 5 }, { idempotencyKey: 'client-key-1' }).catch((e) => e);
      expect(reused).toBeInstanceOf(Unprocessable);
      expect(reused.problem.type).toMatch(/idempotency-key-reused$/);
    });

    it('a bad body is a typed 422 with the problem details, sent once', async () => {
      const { sent, fetch } = counting();
      const orders = served().client({ fetch }).collection('work_orders');
      const e = await orders.create({ department_id: 'one' } as never).catch((x) => x);
      expect(e).toBeInstanceOf(Unprocessable);
      expect(e.problem.errors.map((x: { field: string }) => x.field)).toEqual([
        'department_id',
        'work_order_type_id',
        'work_order_type_group_id',
      ]);
      expect(sent.filter((s) => s.startsWith('POST maintenance')).length).toBe(1);
    });

    it('iterates a search page by page: total up front, each record once, page jumps and a resume from a cursor and page', async () => {
      const client = served().client();
      const orders = client.collection('work_orders');
      for (let i = 0; i < 23; i++) await orders.create({ ...WORK_ORDER, department_id: 4242 });
      const search = await orders.search({ department_id: 4242, $limit: 5, $orderBy: 'id desc' });
      expect(search.total).toBe(23);
      expect(search.pages).toBe(5);
      expect(search.changeSeq).toBeGreaterThan(0);
      const ids: number[] = [];
      for await (const r of search) {
        ids.push(r.id);
        if (ids.length === 12) break;
      }
      // Pages 1 and 2 finished; page 3 was being read: a resume starts at page 3.
      expect(search.position).toEqual({ cursor: search.cursor, page: 3 });
      const resumed = await orders.search(undefined, search.position);
      expect(resumed.total).toBe(23);
      const rest: number[] = [];
      for await (const r of resumed) rest.push(r.id);
      const all = [...ids.slice(0, 10), ...rest];
      expect(all).toHaveLength(23);
      expect(all).toEqual([...all].sort((a, b) => b - a));
      expect((await search.page(5)).map((r) => r.id)).toEqual(all.slice(20));
      expect(await search.page(9)).toEqual([]);
      const jumped = await orders.search({ department_id: 4242, $limit: 5 }, { page: 4 });
      expect(jumped.startPage).toBe(4);
      expect(jumped.first.map((r) => r.id)).toEqual([...all].reverse().slice(15, 20));
      const none = await orders.search({ department_id: 999_999 });
      expect([none.total, none.pages, none.first]).toEqual([0, 0, []]);
      const listed: number[] = [];
      for await (const r of orders.list({ department_id: 4242, $limit: 50 })) listed.push(r.id);
      expect(listed).toHaveLength(23);
    });

    it('reads /bulk with $linked and $fields', async () => {
      const client = served().client();
      const orders = client.collection('work_orders');
      const order = await orders.create({ ...WORK_ORDER, department_id: 777 });
      const notes = orders.child(order.id, 'notes');
      await notes.create({ note: 'first' });
      await notes.create({ note: 'second' });
      const search = await orders.search({ department_id: 777, $linked: ['Notes'], $fields: ['status'] }, { bulk: true });
      expect(search.first).toEqual([
        {
          id: order.id,
          status: 'open',
          linked: { Notes: [expect.objectContaining({ note: 'first' }), expect.objectContaining({ note: 'second' })] },
        },
      ]);
    });

    it('authenticates with the key, refreshes before expiry (once for many requests in flight), and takes up kept tokens', async () => {
      let clock = Date.now();
      const given: Tokens[] = [];
      const { sent, fetch } = counting();
      const client = served().client({ fetch, now: () => clock, onTokens: (t) => given.push(t) });
      const orders = client.collection('work_orders');
      await orders.search({ $limit: 1 });
      expect(given).toHaveLength(1);
      expect(given[0]!.refreshToken).toMatch(/^mrsr\./);
      clock += 3600_000 - 30_000;
      await Promise.all(Array.from({ length: 20 }, () => orders.search({ $limit: 1 })));
      expect(given).toHaveLength(2);
      expect(sent.filter((s) => s === 'POST tokens/refresh')).toHaveLength(1);
      expect(sent.filter((s) => s === 'POST authenticate')).toHaveLength(1);
      // Another run takes up the tokens kept; an access token the server refuses is renewed once.
      const later = served().client({ apiKey: undefined, tokens: { ...given[1]!, accessToken: 'not.a.token' } });
      expect((await later.collection('work_orders').search({ $limit: 1 })).total).toBeGreaterThan(0);
    });
  });
}

for (const db of DATABASES) {
  describe(`the client over the rate limit [${db}]`, () => {
    const served = servedService(db, { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '1' } });

    it('waits out a 429 for as long as Retry-After says, and throws it when that is longer than it may wait', async () => {
      const statuses: number[] = [];
      const fetchCounting: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      };
      const orders = served().client({ fetch: fetchCounting }).collection('work_orders');
      for (let i = 0; i < 7; i++) await orders.search({ $limit: 1 });
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      // Seven searches and /authenticate.
      expect(statuses.filter((s) => s === 200)).toHaveLength(8);
      const impatient = served().client({ maxWaitMs: 0 }).collection('work_orders');
      const refused = await Promise.all(Array.from({ length: 6 }, () => impatient.search({ $limit: 1 }).catch((e) => e)));
      const tooMany = refused.find((e) => e instanceof TooManyRequests);
      expect(tooMany?.headers.get('retry-after')).toMatch(/^\d+$/);
    });
  });
}
