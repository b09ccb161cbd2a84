import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { WORK_ORDER, makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';

/**
 * A keyed write and its key's claim commit together, so a crash between them never
 * leaves a write whose key replays nothing (a duplicate on retry). The chaos test's kill lands
 * between the two only by chance; here the claim fails every time (a trigger refuses the key's
 * row) and the write must be undone with it: a 500, nothing stored, nothing in the feed, and
 * the key still free, so the retry once the claim works is carried out once.
 */
const DOOMED = 'doomed-';

/** Makes the claim of every key starting with DOOMED fail (on), or work again (off). */
async function claimsFail(h: Harness, on: boolean) {
  const t = (await h.service.tenants.get('demo.main'))!;
  const table = t.schema === undefined ? sql.id('mrs_idempotency') : sql.id(t.schema, 'mrs_idempotency');
  const fn = t.schema === undefined ? sql.id('mrs_test_doom') : sql.id(t.schema, 'mrs_test_doom');
  if (h.db === 'sqlite') {
    if (on)
      await sql`create trigger mrs_test_doom before insert on ${table} when new.key like ${sql.lit(`${DOOMED}%`)}
        begin select raise(abort, 'the claim fails'); end`.execute(t.db);
    else await sql`drop trigger mrs_test_doom`.execute(t.db);
  } else if (on) {
    await sql`create function ${fn}() returns trigger language plpgsql as $$
      begin if new.key like ${sql.lit(`${DOOMED}%`)} then raise exception 'the claim fails'; end if; return new; end $$`.execute(t.db);
    await sql`create trigger mrs_test_doom before insert on ${table} for each row execute function ${fn}()`.execute(t.db);
  } else {
    await sql`drop trigger mrs_test_doom on ${table}`.execute(t.db);
    await sql`drop function ${fn}()`.execute(t.db);
  }
}

/** Every work order (deleted ones too), one's ETag and the feed's last seq: what a failed claim must leave as it was. */
async function snapshot(h: Harness, id: number) {
  const list = await h.get(`${M}/work_orders?$deleted=true&$limit=50`);
  const feed = await h.get(`${BASE}/events?$limit=1`);
  const etag = (await h.get(`${M}/work_orders/${id}`)).headers.get('etag');
  return { total: list.headers.get('x-total'), records: list.body, etag, seq: feed.headers.get('x-change-seq') };
}

describeEachDatabase('A keyed write whose key cannot be claimed', (h) => {
  it('POST, PATCH and batch: a 500, nothing written and nothing in the feed; the retry is carried out once', async () => {
    const wo = await makeWorkOrder(h(), { description: 'patched only by the retry' });
    const requests: [string, string, unknown][] = [
      ['POST', `${M}/work_orders`, { ...WORK_ORDER, description: 'created only by the retry' }],
      ['PATCH', `${M}/work_orders/${wo.id}`, { priority: 9 }],
      [
        'POST',
        `${BASE}/batch`,
        {
          operations: [
            { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: 'batched only by the retry' } },
            { method: 'PATCH', path: `/maintenance/work_orders/${wo.id}`, body: { status: 'batched' } },
          ],
        },
      ],
    ];
    const before = await snapshot(h(), wo.id);
    await claimsFail(h(), true);
    try {
      for (const [i, [method, path, body]] of requests.entries()) {
        const r = await h().request(method, path, { body, headers: { 'idempotency-key': `${DOOMED}${i}` } });
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(500);
      }
      expect(await snapshot(h(), wo.id)).toEqual(before);
    } finally {
      await claimsFail(h(), false);
    }
    // The keys are free: each request is carried out now, once, and then replayed.
    for (const [i, [method, path, body]] of requests.entries()) {
      const r = await h().request(method, path, { body, headers: { 'idempotency-key': `${DOOMED}${i}` } });
      expect(r.status, r.text).toBeLessThan(300);
      expect(r.headers.get('idempotency-replayed')).toBeNull();
      const again = await h().request(method, path, { body, headers: { 'idempotency-key': `${DOOMED}${i}` } });
      expect(again.headers.get('idempotency-replayed')).toBe('true');
    }
    const after = await snapshot(h(), wo.id);
    expect(Number(after.total)).toBe(Number(before.total) + 2);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toMatchObject({ priority: 9, status: 'batched' });
  });
});
