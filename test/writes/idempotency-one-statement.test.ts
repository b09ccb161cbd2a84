import { expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { createClaimed } from '../../engine/operations/create.ts';
import { createdAnswer } from '../../engine/http/write-answer.ts';
import type { Written } from '../../engine/records.ts';
import type { OperationContext } from '../../engine/operations/context.ts';
import { BASE, describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/** A keyed create's kept answer, as the POST route makes it. */
const KEPT = { collectionPath: `${M}/work_orders`, answer: (w: Written) => createdAnswer(w, `${M}/work_orders`) };

/**
 * A keyed create with nothing to look up first claims its key in its own statement where the
 * database can (PostgreSQL: record, event and kept answer in one statement; the kept answer
 * written from the inserted row by the database). Whichever way a keyed create went, its answer
 * is the record as a read shows it, its kept answer is that answer, and two services on one
 * database never carry one key out twice.
 */

const keyedPost = (h: Harness, key: string, body: unknown) =>
  h.request('POST', `${M}/work_orders`, { body, headers: { 'idempotency-key': key } });

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

describeEachDatabase('one key claimed with its write through two connections to one database at once', (h) => {
  it('100 rounds: exactly one write is kept, with its one event; the other writes nothing', async () => {
    // Below the service's in-process set of keys in flight, which would answer the second 409
    // before it reached the database: each service's own connection (SQLite: its own write
    // lock on the same file; PostgreSQL: its own pool, or PgBouncer's) races the other's.
    const cfg = h().service.config;
    const other = await startHarness(h().db, { reuse: { dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl } });
    try {
      const contextOf = async (harness: Harness): Promise<OperationContext> => ({
        tenant: (await harness.service.tenants.get('demo.main')) as TenantDb,
        registry: harness.service.engine.registry,
        cursors: { ttlMs: 60_000, now: Date.now },
      });
      const contexts = [await contextOf(h()), await contextOf(other.harness)];
      const department = 6060;
      const before = await contexts[0]!.tenant.events.highest(contexts[0]!.tenant);
      for (let round = 0; round < 100; round++) {
        const key = `two-connections-${round}`;
        const claim = {
          owner: '',
          key,
          fingerprint: 'f',
          lock: JSON.stringify(['mrs-idempotency', 'demo.main', '', key]),
          expiresAt: Date.now() + 60_000,
        };
        const body = { ...WORK_ORDER, department_id: department, priority: round % 9 };
        const settled = await Promise.allSettled(
          contexts.map((ctx) => createClaimed(ctx, ctx.registry.get('work_orders')!, body, claim, KEPT)),
        );
        // The loser found the key taken (nothing written) or, on PostgreSQL, failed on the
        // winner's kept answer (its whole statement undone): either way the caller's
        // transaction path then replays the winner's answer.
        const kept = settled.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
        expect(kept, JSON.stringify(settled)).toHaveLength(1);
        // On SQLite the loser's INSERT finds the key taken and writes nothing: it must not fail
        // (a failure after the INSERT fails its whole group commit, other requests' writes too).
        if (h().db === 'sqlite') expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
        expect(kept[0]!.status).toBe(201);
      }
      const made = (await h().get(`${M}/work_orders?department_id=${department}&$limit=50`)).headers.get('x-total');
      expect(made).toBe('100');
      const events = (await h().get(`${BASE}/events?collection=work_orders&$limit=1000&$after=${before}`)).body.filter(
        (e: any) => e.record.department_id === department,
      );
      expect(events).toHaveLength(100);
    } finally {
      await other.stop(true);
    }
  }, 120_000);
});
