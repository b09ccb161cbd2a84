import { describe, expect, it } from 'vitest';
import { NotFound, PreconditionFailed, etagOf } from '../../client/index.ts';
import { DATABASES } from '../support/harness.ts';
import { servedService } from '../support/client-service.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/**
 * A fetch that loses the answer of the next request of one method: the request reaches the
 * server and is carried out, then the connection "breaks" (after `meanwhile`, another client's
 * doing), so the client retries a write that was made.
 */
function losing() {
  const armed = new Map<string, () => Promise<unknown>>();
  const answered: { method: string; status: number; replayed: boolean }[] = [];
  const f: typeof fetch = async (input, init) => {
    const method = init?.method ?? 'GET';
    const res = await fetch(input, init);
    const meanwhile = armed.get(method);
    if (meanwhile) {
      armed.delete(method);
      await res.arrayBuffer();
      await meanwhile();
      throw new TypeError('fetch failed: the connection was reset');
    }
    answered.push({ method, status: res.status, replayed: res.headers.get('idempotency-replayed') === 'true' });
    return res;
  };
  return { fetch: f, answered, lose: (method: string, meanwhile: () => Promise<unknown> = async () => {}) => armed.set(method, meanwhile) };
}

for (const db of DATABASES) {
  describe(`a write whose answer was lost, retried [${db}]`, () => {
    const served = servedService(db);
    const setup = async () => {
      const net = losing();
      const orders = served().client({ fetch: net.fetch, backoffMs: 1 }).collection('work_orders');
      const direct = served().client().collection('work_orders');
      return { net, orders, direct, record: await orders.create({ ...WORK_ORDER, priority: 1 }) };
    };

    it('PATCH: the retry carries the same Idempotency-Key and gets the kept answer, not a 412', async () => {
      const { net, orders, direct, record } = await setup();
      net.lose('PATCH');
      const patched = await orders.patch(record, { priority: 2 });
      expect(patched.priority).toBe(2);
      expect(net.answered.at(-1)).toEqual({ method: 'PATCH', status: 200, replayed: true });
      expect(etagOf(patched)).toBe('"2"');
      expect((await direct.get(record.id)).priority).toBe(2);
    });

    it('PUT: the retry meets 412 from its own write, finds the record holding what it sent, and answers it', async () => {
      const { net, orders, direct, record } = await setup();
      net.lose('PUT');
      const put = await orders.put(record, { ...WORK_ORDER, description: 'replaced' });
      expect(net.answered.at(-2)).toMatchObject({ method: 'PUT', status: 412 });
      expect(put).toMatchObject({ ...WORK_ORDER, description: 'replaced', priority: null });
      expect(etagOf(put)).toBe('"2"');
      expect(await direct.get(record.id)).toEqual(put);
    });

    it('PUT: a record changed by another after the lost write is still a 412 for the caller', async () => {
      const { net, orders, direct, record } = await setup();
      net.lose('PUT', async () => direct.patch(record.id, { description: 'theirs' }, { ifMatch: false }));
      const refused = await orders.put(record, { ...WORK_ORDER, description: 'mine' }).catch((e) => e);
      expect(refused).toBeInstanceOf(PreconditionFailed);
      expect(refused.etag).toBe('"3"');
      expect(refused.problem.status).toBe(412);
      expect((await direct.get(record.id)).description).toBe('theirs');
    });

    it('DELETE: the retry meets 404 from its own delete, finds the record deleted, and resolves', async () => {
      const { net, orders, direct, record } = await setup();
      net.lose('DELETE');
      await expect(orders.delete(record)).resolves.toBeUndefined();
      expect(net.answered.at(-2)).toMatchObject({ method: 'DELETE', status: 404 });
      expect(await direct.get(record.id).catch((e) => e)).toBeInstanceOf(NotFound);
    });

    it('DELETE: a record that never existed is a 404 however often it was sent', async () => {
      const { net, orders } = await setup();
      net.lose('DELETE');
      const missing = await orders.delete(987_654).catch((e) => e);
      expect(missing).toBeInstanceOf(NotFound);
      expect(missing.retried).toBe(true);
    });
  });
}
