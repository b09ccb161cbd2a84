import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';
import { applyChange, changes, type Model } from '../support/snapshot-changes.ts';
import { isRanged, maxHoles, widthFor } from '../../engine/cursor/layout.ts';
import { rangeStatement } from '../../engine/dialects/sqlite/ranged-snapshot.ts';
import { valueOf } from '../../engine/errors.ts';
import { parseQuery } from '../../engine/query/parse.ts';
import { resolveQuery } from '../../engine/query/resolve.ts';
import { searchOf } from '../../engine/sql/search-sql.ts';

/**
 * The list of a whole table in id order is snapshotted as its ends and holes (a ranged
 * snapshot, engine/cursor/layout.ts) when its rows fill the range of their ids. Whatever changes
 * after the snapshot, its pages are what a naive snapshot's would be: the ids that matched, in
 * order, each record shown as it is now.
 */

const ids = (body: any[]) => body.map((r) => r.id);

const change = changes();

/** A new search, and then every page of its cursor, read again, to one past the last. */
async function walk(h: Harness, query: string, limit: number) {
  const first = await h.get(`${M}/work_orders?${query}&$limit=${limit}`);
  expect(first.status).toBe(200);
  const cursor = first.headers.get('x-cursor')!;
  const total = Number(first.headers.get('x-total'));
  return {
    cursor,
    total,
    pages: async () => {
      const records: any[] = [];
      for (let page = 1; page <= Math.ceil(total / limit) + 1; page++) {
        const r = await h.get(`${M}/work_orders?$cursor=${cursor}&$page=${page}`);
        expect(r.status, r.text).toBe(200);
        if (page <= Math.ceil(total / limit))
          expect(r.body.length).toBe(page < Math.ceil(total / limit) ? limit : total - (page - 1) * limit);
        else expect(r.body).toEqual([]);
        records.push(...r.body);
      }
      return records;
    },
  };
}

async function cursorRows(h: Harness, cursor: string) {
  const tenant = (await h.service.tenants.get('demo.main'))!;
  return tenant.db.selectFrom('mrs_cursors').select(['chunk', 'width']).where('id', '=', cursor).execute();
}

describeEachDatabase('ranged snapshots of the whole table', (h) => {
  const model: Model = new Map();
  beforeAll(async () => {
    for (const id of await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 30 }, () => workOrder({ priority: 1 })),
    ))
      model.set(id, { priority: 1, deleted: false });
  });

  it('page contents equal a naive snapshot, whatever is created, deleted and updated before and after', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(change, { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.array(change, { maxLength: 8 }),
        async (before, withDeleted, limit, after) => {
          for (const c of before) await applyChange(h(), model, c);
          const snapshot = [...model]
            .filter(([, r]) => withDeleted || !r.deleted)
            .map(([id]) => id)
            .sort((a, b) => a - b);
          const search = await walk(h(), withDeleted ? '$deleted=true' : '', limit);
          expect(search.total).toBe(snapshot.length);
          // Ranged: one row, whatever the number of ids (not lazy: engine/cursor/lazy.ts).
          const rows = await cursorRows(h(), search.cursor);
          expect(rows).toHaveLength(1);
          expect(isRanged(Number(rows[0]!.width))).toBe(true);
          for (const c of after) await applyChange(h(), model, c);
          const records = await search.pages();
          expect(ids(records)).toEqual(snapshot);
          for (const r of records) expect({ priority: r.priority, deleted: r.deleted }).toEqual(model.get(r.id));
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);

  it('a search starting past page 1 gets the same ids', async () => {
    const live = [...model]
      .filter(([, r]) => !r.deleted)
      .map(([id]) => id)
      .sort((a, b) => a - b);
    const r = await h().get(`${M}/work_orders?$limit=4&$page=3`);
    expect(ids(r.body)).toEqual(live.slice(8, 12));
    expect(isRanged(Number((await cursorRows(h(), r.headers.get('x-cursor')!))[0]!.width))).toBe(true);
  });
});

describeEachDatabase('ranged snapshots: ids missing between the ends', (h) => {
  it('a table with an id missing between its ends is packed as before when asked past page 1, lazy on page 1 and then ranged with the gap as a hole, and pages the same', async () => {
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 40 }, () => workOrder({})),
    );
    const tenant = (await h().service.tenants.get('demo.main'))!;
    // An id missing for good (no API removes a row; a restore or an import may leave gaps).
    await tenant.db.deleteFrom('work_orders').where('id', '=', made[5]!).execute();
    const expected = made.filter((id) => id !== made[5]);
    const eager = await h().get(`${M}/work_orders?$limit=7&$page=2`);
    expect(ids(eager.body)).toEqual(expected.slice(7, 14));
    expect((await cursorRows(h(), eager.headers.get('x-cursor')!)).some((r) => isRanged(Number(r.width)))).toBe(false);
    const search = await walk(h(), '', 7);
    expect(ids(await search.pages())).toEqual(expected);
    expect((await cursorRows(h(), search.cursor)).map((r) => isRanged(Number(r.width)))).toEqual([true]);
  });
});

describeEachDatabase('ranged snapshots: more holes than a row holds', (h) => {
  it('a table with more deleted records than a ranged row holds is packed as before, lazily or not, and pages the same', async () => {
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 1200 }, () => workOrder({})),
    );
    const holes = maxHoles(widthFor(made.at(-1)!)) + 1;
    // Every other record from the second: holes between the live ends.
    const deleted = new Set(Array.from({ length: holes }, (_, i) => made[2 * i + 1]!));
    for (const id of deleted) expect((await h().del(`${M}/work_orders/${id}`)).status).toBe(204);
    const live = made.filter((id) => !deleted.has(id));
    const eager = await h().get(`${M}/work_orders?$limit=50&$page=2`);
    expect(ids(eager.body)).toEqual(live.slice(50, 100));
    expect((await cursorRows(h(), eager.headers.get('x-cursor')!)).some((r) => isRanged(Number(r.width)))).toBe(false);
    const search = await walk(h(), '', 50);
    expect(ids(await search.pages())).toEqual(live);
    expect((await cursorRows(h(), search.cursor)).some((r) => isRanged(Number(r.width)))).toBe(false);
  }, 60_000);
});

describeEachDatabase('ranged snapshots: the holes of the whole table', (h) => {
  it("SQLite reads them from the table's partial index of deleted rows, not from a scan of every row", async (ctx) => {
    if (h().db !== 'sqlite') ctx.skip(); // the partial index is SQLite's (engine/schema/table.ts)
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const resource = h().service.engine.registry.get('work_orders')!;
    // The live list ($deleted=true has no holes: a constant false condition).
    const query = valueOf(resolveQuery(parseQuery(new URLSearchParams('')), resource));
    const statement = rangeStatement.query(tenant.db, { search: searchOf(resource, query, undefined), width: 6, end: 10 }, {});
    const { rows } = await tenant.db.executeQuery<{ detail: string }>({ ...statement, sql: `explain query plan ${statement.sql}` });
    const details = rows.map((r) => r.detail);
    // Scans of the table itself (no index): page 1's, which stops at its tenth row, and no
    // other (the holes read so before, every row).
    expect(
      details.filter((d) => d === 'SCAN work_orders'),
      details.join('\n'),
    ).toHaveLength(1);
    expect(
      details.some((d) => d.includes('work_orders_deleted_idx')),
      details.join('\n'),
    ).toBe(true);
  });
});
