import { expect, it } from 'vitest';
import { BASE, describeEachDatabase, M, startHarness, type Harness } from './support/harness.ts';
import { WORK_ORDER } from './support/fixtures.ts';

/**
 * A keyed create with nothing to look up first claims its key in its own statement where the
 * database can (PostgreSQL: record, event and kept answer in one statement; the kept answer
 * written from the inserted row by the database). Whichever way a keyed create went, its answer
 * is the record as a read shows it, its kept answer is that answer, and two services on one
 * database never carry one key out twice.
 */

const keyedPost = (h: Harness, key: string, body: unknown) => h.request('POST', `${M}/work_orders`, { body, headers: { 'idempotency-key': key } });

describeEachDatabase('a keyed create claims its key with its write', (h) => {
  it('its answer is the record as read back, its ETag and Location the record’s; the replay is the same bytes', async () => {
    const body = { ...WORK_ORDER, description: 'quote " back\\slash \u00e9 \u2028 <tag>', priority: 4 };
    const first = await keyedPost(h(), 'one-statement-1', body);
    expect(first.status).toBe(201);
    const url = `${M}/work_orders/${first.body.id}`;
    expect(first.headers.get('location')).toBe(url);
    const read = await h().get(url);
    expect(first.text).toBe(read.text);
    expect(first.headers.get('etag')).toBe(read.headers.get('etag'));
    // The same fields as a create without a key answers.
    const plain = await h().post(`${M}/work_orders`, body);
    expect(Object.keys(first.body)).toEqual(Object.keys(plain.body));
    const replay = await keyedPost(h(), 'one-statement-1', body);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    for (const header of ['location', 'etag', 'content-type']) expect(replay.headers.get(header)).toBe(first.headers.get(header));
    // Its event shows the record as answered.
    const feed = await h().get(`${BASE}/events?collection=work_orders&$limit=1000`);
    const created = feed.body.filter((e: any) => e.id === first.body.id);
    expect(created.map((e: any) => e.op)).toEqual(['create']);
    expect(created[0].record).toEqual(first.body);
  });

  it('a body the create refuses is answered and kept as the transaction path keeps it', async () => {
    const bad = { ...WORK_ORDER, priority: 'high' };
    const first = await keyedPost(h(), 'one-statement-bad', bad);
    expect(first.status).toBe(422);
    const again = await keyedPost(h(), 'one-statement-bad', bad);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describeEachDatabase('two services on one PostgreSQL database, one key sent to both at once', (h) => {
  it('200 rounds: the key is carried out once; the other answer is 409 or the same answer replayed', async () => {
    // SQLite: one process holds the database (the multi-process case is the checkpointer's test).
    if (h().db !== 'postgres') return;
    const other = await startHarness('postgres', { reuse: { databaseUrl: h().service.config.databaseUrl } });
    try {
      const count = async () => Number((await h().get(`${M}/work_orders?$deleted=true&$limit=1`)).headers.get('x-total'));
      const before = await count();
      let made = 0;
      for (let round = 0; round < 200; round++) {
        const key = `both-${round}`;
        const body = { ...WORK_ORDER, priority: round % 9 };
        const answers = await Promise.all([keyedPost(h(), key, body), keyedPost(other.harness, key, body)]);
        const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotency-replayed') === null);
        expect(fresh).toHaveLength(1);
        made++;
        for (const a of answers) {
          if (a === fresh[0]) continue;
          if (a.status === 409) expect(a.body.type).toMatch(/idempotency-key-in-flight$/);
          else {
            expect(a.status).toBe(201);
            expect(a.headers.get('idempotency-replayed')).toBe('true');
            expect(a.text).toBe(fresh[0]!.text);
          }
        }
        // After both answered, the key replays the one answer everywhere.
        const replay = await keyedPost(round % 2 ? h() : other.harness, key, body);
        expect(replay.headers.get('idempotency-replayed')).toBe('true');
        expect(replay.text).toBe(fresh[0]!.text);
      }
      expect(await count()).toBe(before + made);
    } finally {
      await other.stop(true);
    }
  }, 120_000);
});
