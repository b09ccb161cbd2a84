import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { newCursorId } from '../../engine/cursor/layout.ts';
import { searchKeyOf } from '../../engine/cursor/index.ts';
import { STRATEGIES, type Strategy } from '../../engine/cursor/strategy.ts';
import type { Snapshot, SnapshotArgs } from '../../engine/cursor/snapshot-store.ts';
import { valueOf } from '../../engine/errors.ts';
import { canonicalize } from '../../engine/query/canonical.ts';
import { parseQuery } from '../../engine/query/parse.ts';
import { resolveQuery } from '../../engine/query/resolve.ts';
import { searchOf } from '../../engine/sql/search-sql.ts';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

/**
 * Every snapshot strategy (engine/cursor/strategy.ts) held to the reference: cursors of the same
 * search taken at the same moment by each strategy and by `reference` (eager, ordered, fixed
 * width) give the same total and the same ids page by page, whatever is created, updated and
 * deleted between pages. A strategy that does not fit the search writes nothing. The reference
 * itself is held to a model of the table.
 */

type Row = { department_id: number; priority: number | null; deleted: boolean };
type Model = Map<number, Row>;

type Change =
  | { kind: 'load'; n: number; department: number; priority: number | null }
  | { kind: 'patch'; pick: number; department: number; priority: number | null }
  | { kind: 'delete'; pick: number };

const department = fc.integer({ min: 1, max: 4 });
const priority = fc.option(fc.integer({ min: 0, max: 5 }), { nil: null });
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('load' as const), n: fc.integer({ min: 1, max: 3 }), department, priority }),
  fc.record({ kind: fc.constant('patch' as const), pick: fc.nat(), department, priority }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);

const search = fc.record({
  // Empty more often than not: the whole table, which the ranged strategy takes.
  departments: fc.oneof(fc.constant([] as number[]), fc.uniqueArray(department, { minLength: 1, maxLength: 3 })),
  atLeast: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 3 }),
  order: fc.constantFrom('id:asc', 'id:asc', 'id:desc', 'priority:asc', 'priority:desc'),
  deleted: fc.boolean(),
  limit: fc.integer({ min: 3, max: 12 }),
  page: fc.integer({ min: 1, max: 3 }),
});
type Search = typeof search extends fc.Arbitrary<infer S> ? S : never;

const queryOf = (s: Search) =>
  [
    ...s.departments.map((d) => `department_id=${d}`),
    ...(s.atLeast !== undefined ? [`priority:gte=${s.atLeast}`] : []),
    `$orderBy=${s.order}`,
    ...(s.deleted ? ['$deleted=true'] : []),
    `$limit=${s.limit}`,
    `$page=${s.page}`,
  ].join('&');

/** The ids of the search over the model as it is: empty values as the largest, ties by id. */
function naive(model: Model, s: Search): number[] {
  const [field, direction] = s.order.split(':') as ['id' | 'priority', 'asc' | 'desc'];
  const sign = direction === 'asc' ? 1 : -1;
  return [...model]
    .filter(
      ([, r]) =>
        (s.deleted || !r.deleted) &&
        (s.departments.length === 0 || s.departments.includes(r.department_id)) &&
        (s.atLeast === undefined || (r.priority !== null && r.priority >= s.atLeast)),
    )
    .sort(([a, ra], [b, rb]) => {
      if (field === 'id') return sign * (a - b);
      const pa = ra.priority ?? Infinity;
      const pb = rb.priority ?? Infinity;
      return pa !== pb ? sign * (pa - pb) : a - b;
    })
    .map(([id]) => id);
}

async function apply(h: Harness, model: Model, c: Change): Promise<void> {
  if (c.kind === 'load') {
    const rows = Array.from({ length: c.n }, () => workOrder({ department_id: c.department, priority: c.priority }));
    for (const id of await insertRecords(h, 'work_orders', rows))
      model.set(id, { department_id: c.department, priority: c.priority, deleted: false });
    return;
  }
  const live = [...model].filter(([, r]) => !r.deleted).map(([id]) => id);
  if (!live.length) return;
  const id = live[c.pick % live.length]!;
  if (c.kind === 'delete') {
    expect((await h.del(`${M}/work_orders/${id}`)).status).toBe(204);
    model.get(id)!.deleted = true;
  } else {
    const r = await h.patch(`${M}/work_orders/${id}`, { department_id: c.department, priority: c.priority });
    expect(r.status, r.text).toBe(200);
    Object.assign(model.get(id)!, { department_id: c.department, priority: c.priority });
  }
}

const idsOfPage = (snap: Snapshot): number[] =>
  'json' in snap.records ? (JSON.parse(snap.records.json) as { id: number }[]).map((r) => r.id) : [...snap.records.ids];

describeEachDatabase('snapshot strategies against the reference', (h) => {
  const model: Model = new Map();
  let owner = '';
  beforeAll(async () => {
    const rows = Array.from({ length: 40 }, (_, i) => workOrder({ department_id: 1 + (i % 4), priority: i % 7 === 6 ? null : i % 6 }));
    for (const [i, id] of (await insertRecords(h(), 'work_orders', rows)).entries())
      model.set(id, { department_id: 1 + (i % 4), priority: i % 7 === 6 ? null : i % 6, deleted: false });
    // The user the harness speaks as: the owner its cursors are bound to.
    const first = await h().get(`${M}/work_orders`);
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const head = await tenant.db
      .selectFrom('mrs_cursors')
      .select('owner')
      .where('id', '=', first.headers.get('x-cursor')!)
      .executeTakeFirstOrThrow();
    owner = head.owner;
  });

  it("every strategy that fits a search gives the reference's total and ids, page by page, with writes between pages", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { maxLength: 4 }), search, fc.array(change, { maxLength: 6 }), async (before, s, between) => {
        for (const c of before) await apply(h(), model, c);
        const expected = naive(model, s);
        const tenant = (await h().service.tenants.get('demo.main'))!;
        const resource = h().service.engine.registry.get('work_orders')!;
        const query = valueOf(resolveQuery(parseQuery(new URLSearchParams(queryOf(s))), resource));
        const searched = searchOf(resource, query, undefined);
        const canonical = canonicalize(query);
        const start = (s.page - 1) * s.limit;
        const expiresAt = Date.now() + 600_000;
        const argsOf = (): SnapshotArgs => ({
          id: newCursorId(),
          search: searched,
          binding: { collection: 'work_orders', scope: '', owner },
          query: canonical,
          expiresAt,
          markUntil: expiresAt + 600_000,
          start,
          end: start + s.limit,
          searchKey: searchKeyOf(searched, canonical),
        });
        // Every strategy's cursor, taken before any write: the reference's first.
        const taken = new Map<Strategy, { id: string; snap: Snapshot }>();
        for (const strategy of ['reference', ...STRATEGIES.filter((x) => x !== 'reference')] as Strategy[]) {
          const args = argsOf();
          const snap = await tenant.snapshots.take(tenant, args, strategy);
          if (snap) taken.set(strategy, { id: args.id, snap });
          else {
            const rows = await tenant.db.selectFrom('mrs_cursors').select('chunk').where('id', '=', args.id).execute();
            expect(rows, `${strategy} wrote rows though it did not fit`).toEqual([]);
          }
        }
        const fitting: Strategy[] = ['reference', 'ordered', ...(start === 0 ? (['lazy'] as const) : [])];
        for (const always of fitting) expect(taken.has(always), always).toBe(true);
        const reference = taken.get('reference')!;
        expect(reference.snap.total).toBe(expected.length);
        expect(idsOfPage(reference.snap)).toEqual(expected.slice(start, start + s.limit));
        for (const [strategy, { snap }] of taken) {
          expect(snap.total, strategy).toBe(reference.snap.total);
          expect(idsOfPage(snap), strategy).toEqual(idsOfPage(reference.snap));
        }
        // Every page of every cursor, and one past the last, with a write before each page.
        const pages = Math.ceil(expected.length / s.limit) + 1;
        const queue = [...between];
        for (let page = 1; page <= pages; page++) {
          const change = queue.shift();
          if (change) await apply(h(), model, change);
          const read = new Map<Strategy, number[]>();
          for (const [strategy, { id }] of taken) {
            const r = await h().get(`${M}/work_orders?$cursor=${id}&$page=${page}`);
            expect(r.status, `${strategy}: ${r.text}`).toBe(200);
            expect(Number(r.headers.get('x-total')), strategy).toBe(expected.length);
            read.set(
              strategy,
              (r.body as { id: number }[]).map((x) => x.id),
            );
          }
          expect(read.get('reference')).toEqual(expected.slice((page - 1) * s.limit, page * s.limit));
          for (const [strategy, ids] of read) expect(ids, `${strategy}, page ${page}`).toEqual(read.get('reference'));
        }
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
