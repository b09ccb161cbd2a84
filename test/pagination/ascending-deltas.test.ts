import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';
import { applyChange, changes, type Model } from '../support/snapshot-changes.ts';
import { ASCENDING_DELTAS, idsPerChunk } from '../../engine/cursor/layout.ts';
import { MAX_LIMIT } from '../../engine/query/reserved.ts';

/**
 * A filtered search in id order is snapshotted as ascending deltas on both databases
 * (engine/cursor/deltas.ts, ascending-ids.ts), its ids read in the order the plan gives (an IN
 * list: one ascending run per value) and put in order by the application. Whatever changes after
 * the snapshot, its pages are what a naive snapshot's would be: the ids that matched, in order,
 * each record shown as it is now (SPEC 5). These searches start on page 2: page 1 of a new
 * search is lazy (engine/cursor/lazy.ts, test/pagination/lazy-snapshots.test.ts), its ids made later.
 */

const ids = (body: any[]) => body.map((r) => r.id);

const department = fc.integer({ min: 1, max: 5 });
const change = changes(department);

async function widthOf(h: Harness, cursor: string) {
  const tenant = (await h.service.tenants.get('demo.main'))!;
  const head = await tenant.db
    .selectFrom('mrs_cursors')
    .select('width')
    .where('id', '=', cursor)
    .where('chunk', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(head.width);
}

/** Every page of a cursor, to one past the last. */
async function pages(h: Harness, cursor: string, total: number, limit: number) {
  const records: any[] = [];
  const last = Math.ceil(total / limit);
  for (let page = 1; page <= last + 1; page++) {
    const r = await h.get(`${M}/work_orders?$cursor=${cursor}&$page=${page}`);
    expect(r.status).toBe(200);
    if (page > last) expect(r.body).toEqual([]);
    records.push(...r.body);
  }
  return records;
}

describeEachDatabase('ascending deltas: filtered searches in id order', (h) => {
  const model: Model = new Map();
  beforeAll(async () => {
    // Departments dealt so an IN list's runs interleave.
    for (const [i, id] of (
      await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 40 }, (_, i) => workOrder({ department_id: 1 + (i % 5), priority: 1 })),
      )
    ).entries())
      model.set(id, { department_id: 1 + (i % 5), priority: 1, deleted: false });
  });

  it('page contents equal a naive snapshot, whatever is created, deleted and updated before and after', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(change, { maxLength: 6 }),
        fc.uniqueArray(department, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(change, { maxLength: 8 }),
        async (before, departments, limit, after) => {
          for (const c of before) await applyChange(h(), model, c);
          const snapshot = [...model]
            .filter(([, r]) => !r.deleted && departments.includes(r.department_id!))
            .map(([id]) => id)
            .sort((a, b) => a - b);
          // A search of its own each run (a condition every record meets): PostgreSQL packs a
          // search whose last snapshot was small in SQL instead.
          const query = [...departments.map((d) => `department_id=${d}`), `priority:gte=${-++runs}`].join('&');
          const first = await h().get(`${M}/work_orders?${query}&$limit=${limit}&$page=2`);
          expect(first.status).toBe(200);
          expect(Number(first.headers.get('x-total'))).toBe(snapshot.length);
          expect(ids(first.body)).toEqual(snapshot.slice(limit, 2 * limit));
          const cursor = first.headers.get('x-cursor')!;
          expect(await widthOf(h(), cursor)).toBe(ASCENDING_DELTAS);
          for (const c of after) await applyChange(h(), model, c);
          const records = await pages(h(), cursor, snapshot.length, limit);
          expect(ids(records)).toEqual(snapshot);
          for (const r of records)
            expect({ department_id: r.department_id, priority: r.priority, deleted: r.deleted }).toEqual(model.get(r.id));
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);

  it('a search starting past page 1 gets the same ids', async () => {
    const live = [...model]
      .filter(([, r]) => !r.deleted && r.department_id! <= 2)
      .map(([id]) => id)
      .sort((a, b) => a - b);
    const r = await h().get(`${M}/work_orders?department_id=1&department_id=2&priority:gte=-1000&$limit=3&$page=2`);
    expect(ids(r.body)).toEqual(live.slice(3, 6));
    expect(await widthOf(h(), r.headers.get('x-cursor')!)).toBe(ASCENDING_DELTAS);
  });
});

describeEachDatabase('ascending deltas: several chunk rows', (h) => {
  it('ids of an IN list across chunk rows, some far apart, page back in order', async () => {
    const per = idsPerChunk(ASCENDING_DELTAS);
    // Two departments interleaved over more than two chunk rows, and a few ids far past the rest
    // (the ids' range then too wide for the bitmap: merged instead).
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 2 * per + 300 }, (_, i) => workOrder({ department_id: 30 + (i % 2) })),
    );
    const far = await insertRecords(h(), 'work_orders', [
      workOrder({ id: 40_000_000, department_id: 31 }),
      workOrder({ id: 50_000_000, department_id: 30 }),
    ]);
    const expected = [...made, ...far];
    const limit = MAX_LIMIT;
    const first = await h().get(`${M}/work_orders?department_id=30&department_id=31&$limit=${limit}&$page=2`);
    expect(Number(first.headers.get('x-total'))).toBe(expected.length);
    const cursor = first.headers.get('x-cursor')!;
    expect(await widthOf(h(), cursor)).toBe(ASCENDING_DELTAS);
    expect(ids(await pages(h(), cursor, expected.length, limit))).toEqual(expected);
  }, 60_000);
});

describeEachDatabase('ascending deltas: ids past their limit', (h) => {
  it('a search in id order with an id deltas do not take is packed, and pages back exact', async () => {
    const made = await insertRecords(h(), 'work_orders', [
      workOrder({ department_id: 61 }),
      workOrder({ id: 123_456_789_012_345, department_id: 62 }),
      workOrder({ id: 8_007_199_254_740_993, department_id: 61 }),
    ]);
    // Twice: PostgreSQL packs the search at once the second time.
    for (let i = 0; i < 2; i++) {
      const first = await h().get(`${M}/work_orders?department_id=61&department_id=62&$limit=2&$page=2`);
      const cursor = first.headers.get('x-cursor')!;
      expect(await widthOf(h(), cursor)).not.toBe(ASCENDING_DELTAS);
      expect(ids(await pages(h(), cursor, made.length, 2))).toEqual(made);
    }
  });
});

describeEachDatabase('ascending deltas: a search that grows', (h) => {
  it('PostgreSQL packs a small search in SQL, and writes it as deltas again once it has grown', async () => {
    const search = async () => {
      const r = await h().get(`${M}/work_orders?department_id=63&department_id=64&$limit=50&$page=2`);
      return { cursor: r.headers.get('x-cursor')!, total: Number(r.headers.get('x-total')) };
    };
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 5 }, (_, i) => workOrder({ department_id: 63 + (i % 2) })),
    );
    // The first try is deltas on both; then PostgreSQL packs it while it stays small.
    const widths = [await widthOf(h(), (await search()).cursor), await widthOf(h(), (await search()).cursor)];
    made.push(
      ...(await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 2100 }, (_, i) => workOrder({ department_id: 63 + (i % 2) })),
      )),
    );
    // Packed once more (the last snapshot was small), then deltas again.
    widths.push(await widthOf(h(), (await search()).cursor));
    const last = await search();
    widths.push(await widthOf(h(), last.cursor));
    const small = h().db === 'postgres' ? 'packed' : ASCENDING_DELTAS;
    expect(widths.map((w) => (w === ASCENDING_DELTAS ? w : 'packed'))).toEqual([ASCENDING_DELTAS, small, small, ASCENDING_DELTAS]);
    expect(ids(await pages(h(), last.cursor, last.total, 50))).toEqual(made);
  }, 60_000);
});
