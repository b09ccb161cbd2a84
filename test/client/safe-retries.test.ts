import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreconditionFailed } from '../../client/index.ts';
import { DATABASES } from '../support/harness.ts';
import { resettingProxy, servedService, type Fate } from '../support/client-service.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/**
 * Safe retries through a flaky network: a proxy resets 10% of requests' connections, half
 * before the request reaches the server, half after the server answered (the write made, its
 * answer lost). The client's Idempotency-Key and If-Match make its retries the same request.
 */
const CREATES = 10_000;
// Enough writes in flight for the server to commit them in groups: the same proof for less CPU.
const WORKERS = 96;
const PATCHES_EACH = 500;
const REPLACED = 400;

/** A fixed pseudo-random sequence: the same fates on every run. */
function fates(seed: number): () => Fate {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const r = s / 2 ** 31;
    return r < 0.05 ? 'reset-before' : r < 0.1 ? 'reset-after' : 'pass';
  };
}

for (const db of DATABASES) {
  describe(`safe retries through a proxy that resets 10% of connections [${db}]`, () => {
    const served = servedService(db);
    let proxy: Awaited<ReturnType<typeof resettingProxy>>;
    beforeAll(async () => {
      proxy = await resettingProxy(served().port, fates(7));
    });
    afterAll(() => proxy?.close());
    const viaProxy = () => served().client({ baseUrl: `http://127.0.0.1:${proxy.port}/v4_server/external/v1`, retries: 12, backoffMs: 5 });

    it(`${CREATES.toLocaleString('en')} creates make exactly ${CREATES.toLocaleString('en')} records`, async () => {
      const orders = viaProxy().collection('work_orders');
      const before = { ...proxy.counts };
      const ids = new Set<number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          while (next < CREATES) {
            const i = next++;
            ids.add((await orders.create({ ...WORK_ORDER, department_id: 31_000 + (i % 7) })).id);
          }
        }),
      );
      expect(ids.size).toBe(CREATES);
      const direct = served().client().collection('work_orders');
      const search = await direct.search({ department_id: [31_000, 31_001, 31_002, 31_003, 31_004, 31_005, 31_006], $limit: 1 });
      expect(search.total).toBe(CREATES);
      // The network did reset both ways, about as often as it was set to.
      const resets = (k: Fate) => proxy.counts[k] - before[k];
      expect(resets('reset-before')).toBeGreaterThan(CREATES * 0.03);
      expect(resets('reset-after')).toBeGreaterThan(CREATES * 0.03);
    }, 900_000);

    it(`${REPLACED} PUTs then DELETEs with If-Match: each one's lost answer is worked out, none reported failed`, async () => {
      const direct = served().client().collection('work_orders');
      const department_id = 32_000;
      const records = await Promise.all(Array.from({ length: REPLACED }, () => direct.create({ ...WORK_ORDER, department_id })));
      const orders = viaProxy().collection('work_orders');
      const before = { ...proxy.counts };
      let next = 0;
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          while (next < REPLACED) {
            const i = next++;
            const put = await orders.put(records[i]!, { ...WORK_ORDER, department_id, description: `put ${i}` });
            expect(put.description).toBe(`put ${i}`);
            await orders.delete(put);
          }
        }),
      );
      expect((await direct.search({ department_id })).total).toBe(0);
      const descriptions = new Set<unknown>();
      for await (const r of await direct.search({ department_id, $deleted: true, $limit: 1000 }))
        descriptions.add(r.deleted && r.description);
      expect(descriptions).toEqual(new Set(Array.from({ length: REPLACED }, (_, i) => `put ${i}`)));
      expect(proxy.counts['reset-after'] - before['reset-after']).toBeGreaterThan(REPLACED * 0.03);
    }, 900_000);

    it(`${2 * PATCHES_EACH} PATCHes racing from two clients with If-Match lose no update without a 412 reaching the caller`, async () => {
      const direct = served().client().collection('work_orders');
      const { id } = await direct.create({ ...WORK_ORDER, priority: 0 });
      let refused = 0;
      const increments = async () => {
        const orders = viaProxy().collection('work_orders');
        // Read, then write from what the last write answered; read again only after a 412.
        let record = await orders.get(id);
        for (let done = 0; done < PATCHES_EACH;) {
          try {
            record = await orders.patch(record, { priority: (record.priority as number) + 1 });
            done++;
          } catch (e) {
            if (!(e instanceof PreconditionFailed)) throw e;
            refused++;
            record = await orders.get(id);
          }
        }
      };
      await Promise.all([increments(), increments()]);
      expect((await direct.get(id)).priority).toBe(2 * PATCHES_EACH);
      expect(refused).toBeGreaterThan(0);
    }, 900_000);
  });
}
