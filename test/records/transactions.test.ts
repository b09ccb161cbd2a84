import type { KyselyPlugin, QueryId } from 'kysely';
import { expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { create, createClaimed } from '../../engine/operations/create.ts';
import { createdAnswer } from '../../engine/http/write-answer.ts';
import type { Written } from '../../engine/records.ts';
import type { OperationContext } from '../../engine/operations/context.ts';
import { patch, replace } from '../../engine/operations/update.ts';
import { offerWriteThen, writeThenOf } from '../../engine/sql/write-then.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { make, makeNote, makeWorkOrder, SERVICE_REQUEST, WORK_ORDER } from '../support/fixtures.ts';

/** A keyed create's kept answer, as the POST route makes it. */
const KEPT = { collectionPath: `${M}/work_orders`, answer: (w: Written) => createdAnswer(w, `${M}/work_orders`) };

/** Lets the first statement of a kind run, then fails the write as a crash between statements would. */
function failAfter(kind: 'InsertQueryNode' | 'UpdateQueryNode'): KyselyPlugin {
  const watched = new WeakSet<QueryId>();
  return {
    transformQuery(args) {
      if (args.node.kind === kind) watched.add(args.queryId);
      return args.node;
    },
    async transformResult(args) {
      if (watched.has(args.queryId)) throw new Error(`${kind} ran, then the write failed`);
      return args.result;
    },
  };
}

async function failingContext(h: Harness, kind: 'InsertQueryNode' | 'UpdateQueryNode'): Promise<OperationContext> {
  const tenant = (await h.service.tenants.get('demo.main')) as TenantDb;
  return {
    tenant: { ...tenant, db: tenant.db.withPlugin(failAfter(kind)) },
    registry: h.service.engine.registry,
    cursors: { ttlMs: 60_000, now: Date.now }, // writes never touch cursors
  };
}

describeEachDatabase('each write is one transaction', (h) => {
  it('a create that names a parent record and fails after its insert leaves no row', async () => {
    const sr = await make(h(), 'service_requests', SERVICE_REQUEST);
    const before = (await h().get(`${M}/work_orders?$deleted=true`)).headers.get('x-total');
    const ctx = await failingContext(h(), 'InsertQueryNode');
    // Where the create and its event are one statement (PostgreSQL), its parent looked up by its
    // INSERT, nothing comes after it to fail: test/events/events-written.test.ts has the database refuse
    // the event instead.
    if (ctx.tenant.supports.eventInStatement) return;
    const body = { ...WORK_ORDER, department_id: 5150, service_request_id: sr.id };
    await expect(create(ctx, ctx.registry.get('work_orders')!, body)).rejects.toThrow(/the write failed/);
    expect((await h().get(`${M}/work_orders?department_id=5150&$deleted=true`)).body).toEqual([]);
    expect((await h().get(`${M}/work_orders?$deleted=true`)).headers.get('x-total')).toBe(before);
  });

  it('a create runs in one transaction, with its event, also with nothing to look up first (or, where the database allows it, is one statement)', async () => {
    const tenant = (await h().service.tenants.get('demo.main')) as TenantDb;
    const calls: string[] = [];
    // Records what the operation asks of the database handle: a transaction, or lone statements.
    const db = new Proxy(tenant.db, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (name === 'transaction' || name === 'executeQuery') calls.push(name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // The handle's WriteThen, when it offers one, offered by the wrapper too, counted.
    const own = writeThenOf(tenant.db);
    if (own)
      offerWriteThen(db, (write, then) => {
        calls.push('writeThen');
        return own(write, then);
      });
    const ctx: OperationContext = {
      tenant: { ...tenant, db },
      registry: h().service.engine.registry,
      cursors: { ttlMs: 60_000, now: Date.now },
    };
    const { record: made } = await create(ctx, ctx.registry.get('work_orders')!, { ...WORK_ORDER, department_id: 5151 });
    // Its event is a second statement (SPEC 9) in a transaction; or, on a database whose
    // statements can write two tables, part of the INSERT's (one statement, atomic by itself); or
    // run right after the INSERT by a handle that keeps the two together (engine/sql/write-then.ts).
    const expected = tenant.supports.eventInStatement ? 'executeQuery' : writeThenOf(tenant.db) ? 'writeThen' : 'transaction';
    // The service's handles offer one of the two (PostgreSQL's statement, SQLite's group commit's WriteThen).
    expect(expected).not.toBe('transaction');
    expect([...new Set(calls)]).toEqual([expected]);
    expect((await h().get(`${M}/work_orders/${made.id}`)).body).toEqual(made);
    // Naming a parent: the INSERT looks it up itself, so the create is written the same way.
    const sr = await make(h(), 'service_requests', SERVICE_REQUEST);
    calls.length = 0;
    const { record: linked } = await create(ctx, ctx.registry.get('work_orders')!, { ...WORK_ORDER, service_request_id: sr.id });
    expect([...new Set(calls)]).toEqual([expected]);
    expect((await h().get(`${M}/work_orders/${linked.id}`)).body).toEqual(linked);
    // A parent that is gone: the INSERT writes nothing, and the transaction says so (422).
    expect((await h().del(`${M}/service_requests/${sr.id}`)).status).toBe(204);
    calls.length = 0;
    await expect(create(ctx, ctx.registry.get('work_orders')!, { ...WORK_ORDER, service_request_id: sr.id })).rejects.toThrow(
      /not a valid record/,
    );
    expect([...new Set(calls)]).toEqual([expected, 'transaction']);
    // A PATCH: its read, then its UPDATE and event in one statement where the database allows
    // it; else all in one transaction.
    calls.length = 0;
    const { record: patched } = await patch(ctx, ctx.registry.get('work_orders')!, made.id as number, { priority: 5 });
    expect([...new Set(calls)]).toEqual([tenant.supports.eventInStatement ? 'executeQuery' : 'transaction']);
    expect((await h().get(`${M}/work_orders/${made.id}`)).body).toEqual(patched);
    // A keyed create with nothing to look up first claims its key with its write: one statement
    // where the database can, else the INSERT (which checks the key is free) with its event and
    // kept answer run right after it; no transaction either way. A key taken: nothing written.
    calls.length = 0;
    const claim = {
      owner: '',
      key: 'path-of-a-keyed-create',
      fingerprint: 'f',
      lock: 'path-of-a-keyed-create',
      expiresAt: Date.now() + 60_000,
    };
    const kept = await createClaimed(ctx, ctx.registry.get('work_orders')!, { ...WORK_ORDER, department_id: 5152 }, claim, KEPT);
    expect([...new Set(calls)]).toEqual([expected]);
    expect(kept?.status).toBe(201);
    const read = await h().get(kept!.location!);
    expect(read.text).toBe(kept!.body);
    expect(read.headers.get('etag')).toBe(kept!.etag);
    expect(await createClaimed(ctx, ctx.registry.get('work_orders')!, { ...WORK_ORDER, department_id: 5152 }, claim, KEPT)).toBeUndefined();
    expect((await h().get(`${M}/work_orders?department_id=5152`)).body).toHaveLength(1);
    const events = (await h().get(`${BASE}/events?collection=work_orders&$limit=1000`)).body.filter(
      (e: any) => e.record.department_id === 5152,
    );
    expect(events.map((e: any) => e.op)).toEqual(['create']);
  });

  it('a child create that fails after its insert leaves no row', async () => {
    const wo = await makeWorkOrder(h());
    const ctx = await failingContext(h(), 'InsertQueryNode');
    if (ctx.tenant.supports.eventInStatement) return; // one statement: as above
    const parent = { resource: ctx.registry.get('work_orders')!, id: wo.id, field: 'work_order_id' };
    await expect(create(ctx, ctx.registry.get('notes')!, { note: 'lost' }, parent)).rejects.toThrow(/the write failed/);
    expect((await h().get(`${M}/work_orders/${wo.id}/notes`)).body).toEqual([]);
  });

  it('a PATCH or PUT that fails after its update leaves the record as it was', async () => {
    const wo = await makeWorkOrder(h(), { priority: 1, description: 'before' });
    const note = await makeNote(h(), wo.id, 'before');
    const ctx = await failingContext(h(), 'UpdateQueryNode');
    // Where the UPDATE and its event are one statement (PostgreSQL), nothing comes after the
    // UPDATE to fail: test/events/events-written.test.ts has the database refuse the event instead.
    if (ctx.tenant.supports.eventInStatement) return;
    await expect(patch(ctx, ctx.registry.get('work_orders')!, wo.id, { priority: 9 })).rejects.toThrow(/the write failed/);
    await expect(replace(ctx, ctx.registry.get('notes')!, note.id, { work_order_id: wo.id, note: 'after' })).rejects.toThrow(
      /the write failed/,
    );
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body).toEqual(wo);
    expect((await h().get(`${M}/notes/${note.id}`)).body).toEqual(note);
  });

  it('a create refused for a dead parent link leaves no row', async () => {
    const before = (await h().get(`${M}/notes?$deleted=true`)).headers.get('x-total');
    const r = await h().post(`${M}/notes`, { note: 'orphan', work_order_id: 987654 });
    expect(r.status, r.text).toBe(422);
    expect((await h().get(`${M}/notes?note=orphan&$deleted=true`)).body).toEqual([]);
    expect((await h().get(`${M}/notes?$deleted=true`)).headers.get('x-total')).toBe(before);
  });
});
