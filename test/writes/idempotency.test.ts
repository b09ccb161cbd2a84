import { expect, it } from 'vitest';
import { EngineError } from '../../engine/errors.ts';
import { withIdempotencyKey } from '../../engine/idempotency/index.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { expectProblem, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';

const keyed = (h: Harness, method: string, path: string, key: string, body: unknown) =>
  h.request(method, path, { body, headers: { 'idempotency-key': key } });

/** How many work orders exist, deleted ones too. */
const countWorkOrders = async (h: Harness) => Number((await h.get(`${M}/work_orders?$deleted=true&$limit=1`)).headers.get('x-total'));

const keptRows = async (h: Harness) => {
  const t = (await h.service.tenants.get('demo.main'))!;
  return t.db.selectFrom('mrs_idempotency').select(['owner', 'key', 'status']).execute();
};

const clock = { t: Date.now() };

describeEachDatabase(
  'Idempotency-Key (SPEC 10)',
  (h) => {
    it('the first request is carried out; the same request again gets its answer, replayed, and nothing more is done', async () => {
      const before = await countWorkOrders(h());
      const first = await keyed(h(), 'POST', `${M}/work_orders`, 'create-1', { ...WORK_ORDER, description: 'once' });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotency-replayed')).toBeNull();
      // The same body with its keys in another order is the same request.
      const again = await keyed(h(), 'POST', `${M}/work_orders`, 'create-1', { description: 'once', ...WORK_ORDER });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      for (const header of ['location', 'etag']) expect(again.headers.get(header)).toBe(first.headers.get(header));
      expect(await countWorkOrders(h())).toBe(before + 1);
      // PATCH: replayed with its ETag, the record written once.
      const url = `${M}/work_orders/${first.body.id}`;
      const patched = await keyed(h(), 'PATCH', url, 'patch-1', { priority: 7 });
      expect(patched.status).toBe(200);
      await h().patch(url, { priority: 8 });
      const replay = await keyed(h(), 'PATCH', url, 'patch-1', { priority: 7 });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      expect(replay.body).toEqual(patched.body);
      expect(replay.headers.get('etag')).toBe(patched.headers.get('etag'));
      expect((await h().get(url)).body.priority).toBe(8);
    });

    it('a keyed POST and PATCH each append their one event to the feed, showing the record as written; a replay appends none', async () => {
      const after = (await h().get(`${BASE}/events`)).headers.get('x-change-seq');
      const created = await keyed(h(), 'POST', `${M}/work_orders`, 'feed-post', { ...WORK_ORDER, priority: 2 });
      const url = `${M}/work_orders/${created.body.id}`;
      await keyed(h(), 'PATCH', url, 'feed-patch', { priority: 5 });
      await keyed(h(), 'POST', `${M}/work_orders`, 'feed-post', { ...WORK_ORDER, priority: 2 });
      await keyed(h(), 'PATCH', url, 'feed-patch', { priority: 5 });
      const feed = await h().get(`${BASE}/events?$after=${after}`);
      expect(feed.body.map((e: any) => [e.op, e.id, e.record.priority])).toEqual([
        ['create', created.body.id, 2],
        ['update', created.body.id, 5],
      ]);
    });

    it('a key used with another method, path or body is 422 idempotency-key-reused; nothing is done', async () => {
      const wo = await makeWorkOrder(h());
      expect((await keyed(h(), 'POST', `${M}/work_orders`, 'reuse-1', WORK_ORDER)).status).toBe(201);
      const before = await countWorkOrders(h());
      for (const [method, path, body] of [
        ['POST', `${M}/work_orders`, { ...WORK_ORDER, priority: 1 }],
        ['POST', `${M}/service_requests`, { description: 'x' }],
        ['PATCH', `${M}/work_orders/${wo.id}`, { priority: 1 }],
      ] as const) {
        const r = await keyed(h(), method, path, 'reuse-1', body);
        expectProblem(r, 422);
        expect(r.body.type).toMatch(/idempotency-key-reused$/);
      }
      expect(await countWorkOrders(h())).toBe(before);
      expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
    });

    it('a malformed key is 400 naming the header', async () => {
      for (const key of ['', 'has space', 'x'.repeat(256), 'é'])
        expectProblem(await keyed(h(), 'POST', `${M}/work_orders`, key, WORK_ORDER), 400, ['Idempotency-Key']);
      expect((await keyed(h(), 'POST', `${M}/work_orders`, 'x'.repeat(255), WORK_ORDER)).status).toBe(201);
    });

    it('two requests at once with one key: one is carried out, the other is 409 idempotency-key-in-flight', async () => {
      const before = await countWorkOrders(h());
      const answers = await Promise.all([1, 2].map(() => keyed(h(), 'POST', `${M}/work_orders`, 'together', WORK_ORDER)));
      // One is carried out; the other finds it running (409), or, when the first finished before
      // the second was looked at (a loaded machine), its kept answer: never a second write.
      const carriedOut = answers.filter((a) => a.status === 201 && a.headers.get('idempotency-replayed') === null);
      expect(carriedOut).toHaveLength(1);
      const other = answers.find((a) => a !== carriedOut[0])!;
      if (other.status === 409) expect(other.body.type).toMatch(/idempotency-key-in-flight$/);
      else expect([other.status, other.headers.get('idempotency-replayed')]).toEqual([201, 'true']);
      expect(await countWorkOrders(h())).toBe(before + 1);
      const retried = await keyed(h(), 'POST', `${M}/work_orders`, 'together', WORK_ORDER);
      expect(retried.headers.get('idempotency-replayed')).toBe('true');
    });

    it('4xx answers of the write are kept; 5xx and 429 are not, and leave the key free', async () => {
      const missing = await keyed(h(), 'POST', `${M}/work_orders`, 'bad-body', { ...WORK_ORDER, colour: 'red' });
      expectProblem(missing, 422, ['colour']);
      const replay = await keyed(h(), 'POST', `${M}/work_orders`, 'bad-body', { ...WORK_ORDER, colour: 'red' });
      expectProblem(replay, 422, ['colour']);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const settings = { ttlMs: 60_000, now: () => clock.t };
      const request = { owner: 'admin', key: 'fails', fingerprint: 'f' };
      const written = [];
      for (const failure of [new Error('boom'), new EngineError('unavailable', 'down'), new EngineError('rate-limited', 'slow')]) {
        await expect(
          withIdempotencyKey(tenant, settings, request, async (trx) => {
            await trx
              .insertInto('work_orders')
              .values({
                ...WORK_ORDER,
                created: '2026-01-01',
                updated: '2026-01-01T00:00:00.000Z',
                deleted: tenant.flavour.encode('boolean', false),
              })
              .execute();
            throw failure;
          }),
        ).rejects.toBe(failure);
        written.push(await countWorkOrders(h()));
      }
      expect(new Set(written).size).toBe(1); // each failed write was undone
      const ok = await withIdempotencyKey(tenant, settings, request, async () => ({ status: 201, body: '{}' }));
      expect(ok.replayed).toBe(false);
    });

    it('keys are per user: the same key of two users is two requests', async () => {
      const other = h().as((await h().login({ username: 'other-user' })).token);
      const a = await keyed(h(), 'POST', `${M}/work_orders`, 'shared-key', WORK_ORDER);
      const b = await keyed(other, 'POST', `${M}/work_orders`, 'shared-key', WORK_ORDER);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.headers.get('idempotency-replayed')).toBeNull();
      expect(b.body.id).not.toBe(a.body.id);
      expect((await keyed(other, 'POST', `${M}/work_orders`, 'shared-key', WORK_ORDER)).body.id).toBe(b.body.id);
    });

    it('answers are kept for IDEMPOTENCY_TTL_S, then the key is new again, and the sweep removes them', async () => {
      const first = await keyed(h(), 'POST', `${M}/work_orders`, 'ttl-1', WORK_ORDER);
      for (let i = 0; i < 5; i++) await keyed(h(), 'POST', `${M}/work_orders`, `ttl-many-${i}`, WORK_ORDER);
      clock.t += 59_000;
      expect((await keyed(h(), 'POST', `${M}/work_orders`, 'ttl-1', WORK_ORDER)).headers.get('idempotency-replayed')).toBe('true');
      clock.t += 2_000;
      const later = await keyed(h(), 'POST', `${M}/work_orders`, 'ttl-1', WORK_ORDER);
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotency-replayed')).toBeNull();
      expect(later.body.id).not.toBe(first.body.id);
      clock.t += 61_000;
      await keyed(h(), 'POST', `${M}/work_orders`, 'ttl-last', WORK_ORDER);
      expect((await keptRows(h())).map((r) => r.key)).toEqual(['ttl-last']);
    });
  },
  { env: { IDEMPOTENCY_TTL_S: '60' }, now: () => clock.t },
);
