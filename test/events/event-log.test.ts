import { expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { eventJson, type NewEvent } from '../../engine/events/event-log.ts';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { makeWorkOrder } from '../support/fixtures.ts';

/**
 * The EventLog of each database (TenantDb.events) spoken to directly: append in a transaction,
 * read pages with the highest seq, sweep with the gone mark.
 */
const tenantOf = async (h: Harness) => (await h.service.tenants.get('demo.main')) as TenantDb;

const event = (id: number, extra: Partial<NewEvent> = {}): NewEvent => ({
  collection: 'work_orders',
  id,
  op: 'update',
  changed: ['priority'],
  record: JSON.stringify({ id, note: `the record of ${id}` }),
  user: 'admin',
  at: new Date().toISOString(),
  ...extra,
});

describeEachDatabase('the event log of each database', (h) => {
  it('appends an event as given, and counts it as the highest seq', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h(), { priority: 4 });
    const before = await t.events.highest(t);
    const record = { id: wo.id, priority: 4, note: 'ünïcode "quoted" \\ \n' };
    await t.db
      .transaction()
      .execute((trx) => t.events.append(t, trx, [event(wo.id, { at: '2026-01-02T03:04:05.678Z', record: JSON.stringify(record) })]));
    expect(await t.events.highest(t)).toBe(before + 1);
    const page = await t.events.read(t, { after: before, limit: 10 });
    expect(page.highest).toBe(before + 1);
    expect(page.goneBelow).toBe(0);
    expect(page.events).toHaveLength(1);
    const [e] = page.events;
    expect(e!.record).toBe(JSON.stringify(record));
    expect(JSON.parse(eventJson(e!))).toEqual({
      seq: before + 1,
      at: '2026-01-02T03:04:05.678Z',
      collection: 'work_orders',
      id: wo.id,
      op: 'update',
      changed: ['priority'],
      record,
      user: 'admin',
    });
  });

  it('a read shows events committed and not numbered yet (their writer gone before numbering them)', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h());
    const before = await t.events.highest(t);
    // Written as a write writes it, but with no one told to number it (PostgreSQL; SQLite numbers as it writes).
    const e = event(wo.id);
    await t.db
      .insertInto('mrs_events')
      .values({
        at: e.at,
        collection: e.collection,
        record_id: e.id,
        op: e.op,
        changed: JSON.stringify(e.changed),
        record: e.record,
        username: e.user,
      })
      .execute();
    const page = await t.events.read(t, { after: before, limit: 10 });
    expect(page.events.map((x) => [x.seq, x.id])).toEqual([[before + 1, wo.id]]);
    expect(page.highest).toBe(before + 1);
    // The same for a page read as JSON: another such event, read first as JSON.
    await t.db
      .insertInto('mrs_events')
      .values({
        at: e.at,
        collection: e.collection,
        record_id: e.id,
        op: e.op,
        changed: JSON.stringify(e.changed),
        record: e.record,
        username: e.user,
      })
      .execute();
    const json = await t.events.readJson(t, { after: before, limit: 10 });
    expect(JSON.parse(json.json).map((x: any) => [x.seq, x.id])).toEqual([
      [before + 1, wo.id],
      [before + 2, wo.id],
    ]);
    expect(json.highest).toBe(before + 2);
  });

  it('readJson writes the page read gives, each event as eventJson writes it, byte for byte', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h());
    const before = await t.events.highest(t);
    const tricky = 'a"b\\c\n\t\u0001\u001f\u007f é \u2028 / <>';
    await t.db
      .transaction()
      .execute((trx) =>
        t.events.append(t, trx, [
          event(wo.id, { op: 'create', user: tricky, record: JSON.stringify({ id: wo.id, text: tricky }) }),
          event(wo.id, { user: null, changed: [] }),
          event(wo.id, { collection: 'service_requests', op: 'delete', changed: ['deleted'] }),
        ]),
      );
    const queries = [
      { after: before, limit: 10 },
      { after: before, limit: 2 },
      { after: before + 1, limit: 10 },
      { after: before, limit: 10, collections: ['work_orders'] },
      { after: before, limit: 10, collections: [] },
      { after: before, limit: 10, ops: ['delete', 'create'] as const },
      { after: before + 3, limit: 10 },
    ];
    for (const q of queries) {
      const page = await t.events.read(t, q as any);
      const json = await t.events.readJson(t, q as any);
      expect(json.json).toBe(`[${page.events.map(eventJson).join(',')}]`);
      expect([json.highest, json.goneBelow]).toEqual([page.highest, page.goneBelow]);
    }
    const all = JSON.parse((await t.events.readJson(t, { after: before, limit: 10 })).json);
    expect(all.map((e: any) => [e.op, e.user])).toEqual([
      ['create', tricky],
      ['update', null],
      ['delete', 'admin'],
    ]);
  });

  it('gives several events of one append consecutive seqs in the order given', async () => {
    const t = await tenantOf(h());
    const a = await makeWorkOrder(h());
    const b = await makeWorkOrder(h());
    const before = await t.events.highest(t);
    await t.db
      .transaction()
      .execute((trx) =>
        t.events.append(t, trx, [event(b.id, { op: 'create' }), event(a.id, { op: 'delete', changed: ['deleted'], user: null })]),
      );
    const { events } = await t.events.read(t, { after: before, limit: 10 });
    expect(events.map((e) => [e.seq, e.id, e.op, e.user])).toEqual([
      [before + 1, b.id, 'create', 'admin'],
      [before + 2, a.id, 'delete', null],
    ]);
  });

  it('appends nothing when the transaction rolls back, and takes no seq from the next one', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h());
    const before = await t.events.highest(t);
    await expect(
      t.db.transaction().execute(async (trx) => {
        await t.events.append(t, trx, [event(wo.id)]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.events.highest(t)).toBe(before);
    expect((await t.events.read(t, { after: before, limit: 10 })).events).toEqual([]);
  });

  it('reads after a position, up to a limit, only the collections and ops asked for', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h());
    const before = await t.events.highest(t);
    const ops = ['create', 'update', 'update', 'delete'] as const;
    await t.db.transaction().execute((trx) =>
      t.events.append(
        t,
        trx,
        ops.map((op) => event(wo.id, { op })),
      ),
    );
    const seqs = async (q: Parameters<typeof t.events.read>[1]) => (await t.events.read(t, q)).events.map((e) => e.seq);
    expect(await seqs({ after: before, limit: 2 })).toEqual([before + 1, before + 2]);
    expect(await seqs({ after: before + 2, limit: 100 })).toEqual([before + 3, before + 4]);
    expect(await seqs({ after: before, limit: 100, ops: ['update'] })).toEqual([before + 2, before + 3]);
    expect(await seqs({ after: before, limit: 100, ops: ['create', 'delete'] })).toEqual([before + 1, before + 4]);
    expect(await seqs({ after: before, limit: 100, collections: ['work_orders', 'notes'] })).toHaveLength(4);
    expect(await seqs({ after: before, limit: 100, collections: ['notes'] })).toEqual([]);
    const none = await t.events.read(t, { after: before, limit: 100, collections: [] });
    expect(none.events).toEqual([]);
    expect(none.highest).toBe(before + 4);
    const past = await t.events.read(t, { after: before + 4, limit: 100 });
    expect(past).toEqual({ events: [], highest: before + 4, goneBelow: 0 });
  });

  it('sweeps old events a bounded batch at a time, marks them gone, and never gives their seqs again', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h());
    const old = '2000-01-01T00:00:00.000Z';
    await t.db.transaction().execute((trx) =>
      t.events.append(
        t,
        trx,
        [1, 2, 3].map(() => event(wo.id, { at: old })),
      ),
    );
    const top = await t.events.highest(t);
    // Every event so far is before now: two sweeps of 2 leave none of the old ones.
    const cut = new Date(Date.now() + 1000).toISOString();
    let removed = 0;
    for (let i = 0; i < 100; i++) {
      const n = await t.events.sweep(t, cut, 2);
      expect(n).toBeLessThanOrEqual(2);
      if (n === 0) break;
      removed += n;
    }
    expect(removed).toBeGreaterThanOrEqual(3);
    const after = await t.events.read(t, { after: 0, limit: 1000 });
    expect(after.events).toEqual([]);
    expect(after.goneBelow).toBe(top);
    // The table is empty; the highest seq stays, and the next one follows it.
    expect(after.highest).toBe(top);
    await t.db.transaction().execute((trx) => t.events.append(t, trx, [event(wo.id)]));
    expect((await t.events.read(t, { after: 0, limit: 10 })).events.map((e) => e.seq)).toEqual([top + 1]);
    // Recent events are kept.
    expect(await t.events.sweep(t, old)).toBe(0);
  });
});
