import fc from 'fast-check';
import { sql, type KyselyPlugin, type QueryId } from 'kysely';
import { expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import type { StoredEvent } from '../../engine/events/event-log.ts';
import type { OperationContext } from '../../engine/operations/context.ts';
import { create } from '../../engine/operations/create.ts';
import { softDelete } from '../../engine/operations/soft-delete.ts';
import { patch, replace } from '../../engine/operations/update.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { tableRef } from '../../engine/dialects/table-ref.ts';
import { expectProblem, makeNote, makeWorkOrder, RFC3339_UTC, WORK_ORDER } from '../support/fixtures.ts';

/**
 * Every write appends its event in its own transaction (SPEC 9): the event's fields, its record
 * as a read shows it, and no event without its change nor change without its event.
 */
const tenantOf = async (h: Harness) => (await h.service.tenants.get('demo.main')) as TenantDb;

/** The events appended since `after` (the feed read from the tenant's EventLog). */
async function eventsSince(h: Harness, after: number): Promise<StoredEvent[]> {
  const t = await tenantOf(h);
  return [...(await t.events.read(t, { after, limit: 1000 })).events];
}

async function highest(h: Harness): Promise<number> {
  const t = await tenantOf(h);
  return t.events.highest(t);
}

const WORK_ORDER_FIELDS = [
  'department_id',
  'work_order_type_id',
  'work_order_type_group_id',
  'priority',
  'status',
  'description',
  'service_request_id',
];

/** Fails the event insert after it ran, as a crash between it and the commit would. */
const failEventInsert: KyselyPlugin = (() => {
  const watched = new WeakSet<QueryId>();
  return {
    transformQuery(args) {
      const text = JSON.stringify(args.node);
      if (text.includes('mrs_events') && /insert into/i.test(text)) watched.add(args.queryId);
      return args.node;
    },
    async transformResult(args) {
      if (watched.has(args.queryId)) throw new Error('the event insert ran, then the write failed');
      return args.result;
    },
  };
})();

async function failingContext(h: Harness): Promise<OperationContext> {
  const tenant = await tenantOf(h);
  return {
    tenant: { ...tenant, db: tenant.db.withPlugin(failEventInsert) },
    registry: h.service.engine.registry,
    user: 'admin',
    cursors: { ttlMs: 60_000, now: Date.now },
  };
}

describeEachDatabase('each write appends its event in its transaction', (h) => {
  it('a create appends a create event: every field changed, the record as a read shows it, the user', async () => {
    const before = await highest(h());
    const r = await h().post(`${M}/work_orders`, { ...WORK_ORDER, priority: 3 });
    expect(r.status, r.text).toBe(201);
    const events = await eventsSince(h(), before);
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({ seq: before + 1, collection: 'work_orders', id: r.body.id, op: 'create', user: 'admin' });
    expect(e!.at).toMatch(RFC3339_UTC);
    expect(JSON.parse(e!.changed)).toEqual(WORK_ORDER_FIELDS);
    expect(e!.record).toBe((await h().get(`${M}/work_orders/${r.body.id}`)).text);
  });

  it("an event's record is byte for byte what a read answers, whatever characters its text holds", async () => {
    // The event takes the write's record as JSON.stringify writes it; reads have the database
    // write it: both must escape alike (controls, quotes, backslashes, U+2028, astral characters).
    const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const description = `${controls} "quoted" back\\slash \u2028\u2029 \u007f ünïcödé 漢字 🛠️ </script>`;
    const before = await highest(h());
    const r = await h().post(`${M}/work_orders`, { ...WORK_ORDER, description });
    expect(r.status, r.text).toBe(201);
    expect((await h().patch(`${M}/work_orders/${r.body.id}`, { description: `${description}!` })).status).toBe(200);
    const events = await eventsSince(h(), before);
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0]!.record).description).toBe(description);
    expect(events[1]!.record).toBe((await h().get(`${M}/work_orders/${r.body.id}`)).text);
  });

  it('a child create under its parent path appends one event', async () => {
    const wo = await makeWorkOrder(h());
    const before = await highest(h());
    const note = await makeNote(h(), wo.id, 'hello');
    const events = await eventsSince(h(), before);
    expect(events.map((e) => [e.collection, e.id, e.op])).toEqual([['notes', note.id, 'create']]);
    expect(events[0]!.record).toBe((await h().get(`${M}/notes/${note.id}`)).text);
  });

  it('a PATCH appends an update event naming the fields whose value changed, [] when none did', async () => {
    const wo = await makeWorkOrder(h(), { priority: 1, description: 'a' });
    const before = await highest(h());
    expect((await h().patch(`${M}/work_orders/${wo.id}`, { priority: 2, description: 'a' })).status).toBe(200);
    expect((await h().patch(`${M}/work_orders/${wo.id}`, { priority: 2 })).status).toBe(200);
    const events = await eventsSince(h(), before);
    expect(events.map((e) => [e.op, JSON.parse(e.changed)])).toEqual([
      ['update', ['priority']],
      ['update', []],
    ]);
    expect(events[1]!.record).toBe((await h().get(`${M}/work_orders/${wo.id}`)).text);
    expect(JSON.parse(events[0]!.record)).toMatchObject({ priority: 2, description: 'a' });
  });

  it('any PATCH: its event names exactly the fields whose value differs between the reads before and after it', async () => {
    const wo = await makeWorkOrder(h(), { priority: 1, description: 'a' });
    const url = `${M}/work_orders/${wo.id}`;
    const small = fc.integer({ min: 1, max: 3 });
    const body = fc.record(
      {
        department_id: small,
        work_order_type_id: small,
        priority: fc.option(small, { nil: null }),
        status: fc.constantFrom('open', 'closed'),
        description: fc.option(fc.constantFrom('a', 'b', 'é "x"'), { nil: null }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const read = (await h().get(url)).body;
        const seq = await highest(h());
        const r = await h().patch(url, sent);
        expect(r.status, r.text).toBe(200);
        const [e] = await eventsSince(h(), seq);
        const after = (await h().get(url)).body;
        expect(JSON.parse(e!.changed)).toEqual(WORK_ORDER_FIELDS.filter((f) => read[f] !== after[f]));
        expect(JSON.parse(e!.record)).toEqual(after);
      }),
      { numRuns: 40 },
    );
  });

  it('a PUT appends an update event naming the fields it changed, defaults it reset included', async () => {
    const wo = await makeWorkOrder(h(), { priority: 5, status: 'closed' });
    const before = await highest(h());
    const r = await h().put(`${M}/work_orders/${wo.id}`, { ...WORK_ORDER, department_id: 9 });
    expect(r.status, r.text).toBe(200);
    const events = await eventsSince(h(), before);
    expect(events.map((e) => [e.op, JSON.parse(e.changed).sort()])).toEqual([['update', ['department_id', 'priority', 'status']]]);
    expect(events[0]!.record).toBe((await h().get(`${M}/work_orders/${wo.id}`)).text);
  });

  it('a soft delete appends a delete event with ["deleted"] and the deleted record', async () => {
    const wo = await makeWorkOrder(h());
    const before = await highest(h());
    expect((await h().del(`${M}/work_orders/${wo.id}`)).status).toBe(204);
    const events = await eventsSince(h(), before);
    expect(events.map((e) => [e.op, e.id, JSON.parse(e.changed)])).toEqual([['delete', wo.id, ['deleted']]]);
    expect(events[0]!.record).toBe((await h().get(`${M}/work_orders/${wo.id}?$deleted=true`)).text);
    expect(JSON.parse(events[0]!.record).deleted).toBe(true);
  });

  it('a refused write (422, 404) appends nothing', async () => {
    const wo = await makeWorkOrder(h());
    const before = await highest(h());
    expect((await h().post(`${M}/work_orders`, { priority: 'high' })).status).toBe(422);
    expect((await h().post(`${M}/notes`, { note: 'orphan', work_order_id: 987654 })).status).toBe(422);
    expect((await h().patch(`${M}/work_orders/${wo.id}`, { priority: 'x' })).status).toBe(422);
    expect((await h().patch(`${M}/work_orders/987654`, { priority: 1 })).status).toBe(404);
    expect((await h().put(`${M}/work_orders/987654`, WORK_ORDER)).status).toBe(404);
    expect((await h().del(`${M}/work_orders/987654`)).status).toBe(404);
    expect((await h().post(`${M}/work_orders/987654/notes`, { note: 'x' })).status).toBe(404);
    expect(await eventsSince(h(), before)).toEqual([]);
    expect(await highest(h())).toBe(before);
  });

  it('a write whose event insert fails leaves neither the change nor the event', async () => {
    const wo = await makeWorkOrder(h(), { priority: 1 });
    const before = await highest(h());
    const ctx = await failingContext(h());
    const workOrders = ctx.registry.get('work_orders')!;
    const failed = /the event insert ran, then the write failed/;
    // A create is one statement where the database allows it (PostgreSQL), its parents looked
    // up by its INSERT: nothing comes between its event insert and its end; the next test fails it.
    if (!ctx.tenant.supports.eventInStatement) {
      await expect(create(ctx, workOrders, { ...WORK_ORDER, department_id: 6161 })).rejects.toThrow(failed);
      await expect(
        create(ctx, ctx.registry.get('notes')!, { note: 'lost' }, { resource: workOrders, id: wo.id, field: 'work_order_id' }),
      ).rejects.toThrow(failed);
    }
    // So are a PATCH, a PUT and a delete (the UPDATE with its event); the next test fails them.
    if (!ctx.tenant.supports.eventInStatement) {
      await expect(patch(ctx, workOrders, wo.id, { priority: 9 })).rejects.toThrow(failed);
      await expect(replace(ctx, workOrders, wo.id, { ...WORK_ORDER, priority: 9 })).rejects.toThrow(failed);
      await expect(softDelete(ctx, workOrders, wo.id)).rejects.toThrow(failed);
    }
    expect((await h().get(`${M}/work_orders?department_id=6161&$deleted=true`)).body).toEqual([]);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([]);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
    expect(await eventsSince(h(), before)).toEqual([]);
    // The feed goes on with the next write's event.
    const next = await makeWorkOrder(h());
    expect((await eventsSince(h(), before)).map((e) => e.id)).toEqual([next.id]);
  });

  it('a write whose event the database refuses is refused whole: no change, no event', async () => {
    const t = await tenantOf(h());
    const wo = await makeWorkOrder(h(), { priority: 1 });
    const before = await highest(h());
    const events = tableRef(t, 'mrs_events');
    const fn = tableRef(t, 'mrs_test_refuse_event');
    if (h().db === 'sqlite')
      await sql`create trigger mrs_test_refuse_event before insert on mrs_events begin select raise(abort, 'no events today'); end`.execute(
        t.db,
      );
    else {
      await sql`create function ${fn}() returns trigger language plpgsql as $$ begin raise exception 'no events today'; end $$`.execute(
        t.db,
      );
      await sql`create trigger mrs_test_refuse_event before insert on ${events} for each row execute function ${fn}()`.execute(t.db);
    }
    try {
      expectProblem(await h().post(`${M}/work_orders`, { ...WORK_ORDER, department_id: 6262 }), 500);
      expectProblem(await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'lost' }), 500);
      expectProblem(await h().patch(`${M}/work_orders/${wo.id}`, { priority: 9 }), 500);
      expectProblem(await h().put(`${M}/work_orders/${wo.id}`, { ...WORK_ORDER, priority: 9 }), 500);
      expectProblem(await h().del(`${M}/work_orders/${wo.id}`), 500);
    } finally {
      if (h().db === 'sqlite') await sql`drop trigger mrs_test_refuse_event`.execute(t.db);
      else {
        await sql`drop trigger mrs_test_refuse_event on ${events}`.execute(t.db);
        await sql`drop function ${fn}()`.execute(t.db);
      }
    }
    expect((await h().get(`${M}/work_orders?department_id=6262&$deleted=true`)).body).toEqual([]);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([]);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
    expect(await eventsSince(h(), before)).toEqual([]);
  });

  it('new events are numbered a moment after their write, with nothing reading the feed', async () => {
    const t = await tenantOf(h());
    const unnumbered = async () =>
      Number(
        (await sql<{ n: unknown }>`select count(*) as n from ${tableRef(t, 'mrs_events')} where seq is null`.execute(t.db)).rows[0]!.n,
      );
    const settled = async () => {
      // SQLite numbers them as it writes them; PostgreSQL soon after (dialects/postgres/event-log.ts).
      for (let i = 0; i < 100 && (await unnumbered()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      return unnumbered();
    };
    await makeWorkOrder(h());
    await h().patch(`${M}/work_orders/${(await makeWorkOrder(h())).id}`, { priority: 2 });
    expect(await settled()).toBe(0);
    // Also writes made in a transaction of their own: a keyed one, a batch.
    const keyed = await h().request('POST', `${M}/work_orders`, { body: WORK_ORDER, headers: { 'idempotency-key': 'numbered-soon' } });
    expect(keyed.status, keyed.text).toBe(201);
    expect(await settled()).toBe(0);
    const batch = await h().request('POST', `${BASE}/batch`, {
      body: { operations: [{ method: 'POST', path: '/maintenance/work_orders', body: WORK_ORDER }] },
    });
    expect(batch.status, batch.text).toBe(200);
    expect(await settled()).toBe(0);
  });
});
