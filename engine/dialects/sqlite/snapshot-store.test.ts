import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, SqliteDialect, sql, type Expression, type SqlBool } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { idsAscend, offsetOf, widthFor } from '../../cursor/layout.ts';
import type { Search } from '../../cursor/snapshot-store.ts';
import type { Resource } from '../../registry.ts';
import type { TenantDb } from '../types.ts';
import { tenantDb } from '../../tenant-db.ts';
import { readsTableInIdOrder } from '../../cursor/snapshot-sql.ts';
import { packStatement, type Packing } from './snapshot-store.ts';

describe('readsTableInIdOrder', () => {
  it('holds for top-level searches without filters in ascending id order only', () => {
    const asc = { field: 'id', direction: 'asc' } as const;
    const whole = { filters: [], scope: undefined, order: asc };
    const open = { field: 'status', kind: 'string', op: 'eq', values: ['open'] } as const;
    expect(readsTableInIdOrder(whole)).toBe(true);
    expect(readsTableInIdOrder({ ...whole, filters: [open] })).toBe(false);
    expect(readsTableInIdOrder({ ...whole, order: { field: 'id', direction: 'desc' } })).toBe(false);
    expect(readsTableInIdOrder({ ...whole, order: { field: 'priority', direction: 'asc' } })).toBe(false);
    // A child list's parent link is a condition of its own.
    expect(readsTableInIdOrder({ ...whole, scope: { field: 'work_order_id', id: 5 } })).toBe(false);
  });
});

describe('packStatement on SQLite', () => {
  const raw = new Database(':memory:');
  const t: TenantDb = tenantDb(new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) }), { key: 't' });
  raw.exec(
    'create table items (id integer primary key autoincrement, deleted integer not null, k integer not null); create index items_k on items (k, deleted)',
  );
  const insert = raw.prepare('insert into items (deleted, k) values (?, ?)');
  afterAll(() => raw.close());

  type Where = (eb: any) => Expression<SqlBool>;
  /** A search of `items` whose condition is `where`: its own frozen SQL, so each is compiled anew. */
  const search = (where: Where): Search => ({
    resource: Object.freeze({ name: 'items' }) as unknown as Resource,
    filters: [],
    deleted: true,
    scope: undefined,
    order: { field: 'id', direction: 'asc' },
    shape: undefined,
    sql: Object.freeze({ where: () => where, recordJson: () => sql<string>`'{}'` }),
  });
  const largest = () => widthFor(Number(raw.prepare('select max(id) from items').pluck().get() ?? 0));
  const run = (packing: Packing, where: Where, ...width: [number?]) => {
    const q = packStatement.query(
      t.db,
      { search: search(where), how: packing, width: width.length ? width[0] : largest(), end: undefined },
      {},
    );
    return { sql: q.sql, row: raw.prepare(q.sql).get(...q.parameters) as { width: number; packed: string } };
  };

  it('reads the table without an index and without an ordered sub-select when asked to scan', () => {
    const live = (eb: any) => eb('deleted', '=', 0);
    expect(run('scan', live).sql).toMatch(/from "items" not indexed where/);
    expect(run('scan', live).sql).not.toMatch(/order by/);
    expect(run('ordered', live).sql).toMatch(/order by "id" asc/);
    // The planner's plan: neither a forced scan nor an ordered sub-select.
    expect(run('plan', live).sql).not.toMatch(/not indexed|order by/);
  });

  it('adds the offset of the width it was built for as a literal, and reports the width the ids need', () => {
    raw.exec('delete from items');
    for (let i = 0; i < 12; i++) insert.run(0, 1);
    const id = (eb: any) => eb('deleted', '=', 0);
    const max = Number(raw.prepare('select max(id) from items').pluck().get());
    const right = run('ordered', id, widthFor(max));
    expect(right.sql).toContain(`"id" + ${offsetOf(widthFor(max))}`);
    expect(right.row.width).toBe(widthFor(max));
    // Built for too narrow a width: the statement says so (the store then builds it again).
    expect(run('ordered', id, 1).row.width).toBe(widthFor(max));
    expect(run('scan', id, 1).row.width).toBe(widthFor(max));
    // Without a width, the offset of the width it reads, whatever that is.
    const own = run('ordered', id, undefined);
    expect(own.sql).toContain('(select w.base from w)');
    expect(own.row).toEqual(right.row);
  });

  it('packs the same ids as the ordered sub-select, whatever the rows and the indexed column say', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 })), { maxLength: 300 }), fc.boolean(), (rows, liveOnly) => {
        raw.exec('delete from items');
        // Ids with gaps and past a width boundary (9, 90, ...), inserted in an order of their own.
        raw.exec(`update sqlite_sequence set seq = ${rows.length % 7 === 0 ? 85 : 0} where name = 'items'`);
        for (const [deleted, k] of rows) insert.run(deleted ? 1 : 0, k);
        raw.exec('delete from items where k = 3 and id % 2 = 0');
        const where = liveOnly ? (eb: any) => eb('deleted', '=', 0) : (eb: any) => eb.and([]);
        const scanned = run('scan', where).row;
        expect(scanned).toEqual(run('ordered', where).row);
        const ids = (
          raw
            .prepare(`select id from items ${liveOnly ? 'where deleted = 0' : ''} order by id`)
            .pluck()
            .all() as number[]
        ).map((id) => String(id + 10 ** (scanned.width - 1)));
        expect(scanned.packed).toBe(ids.join(''));
      }),
      { numRuns: 200 },
    );
  });

  it("packs by the planner's plan the same ids, in id order for an equality lookup, ascending or not for the rest", () => {
    const conditions: [string, (c: number) => Where, boolean][] = [
      // The index is (k, deleted): k alone is two ranges of it, deleted = 0 and deleted = 1.
      ['k = c', (c) => (eb: any) => eb('k', '=', c), false],
      ['k = c, live', (c) => (eb: any) => eb.and([eb('k', '=', c), eb('deleted', '=', 0)]), true],
      ['k > c', (c) => (eb: any) => eb('k', '>', c), false],
      ['k in (c, c + 1)', (c) => (eb: any) => eb('k', 'in', [c + 1, c]), false],
      ['k <> c', (c) => (eb: any) => eb('k', '<>', c), false],
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 })), { maxLength: 200 }),
        fc.constantFrom(...conditions),
        fc.integer({ min: 0, max: 3 }),
        (rows, [, condition, alwaysInOrder], c) => {
          raw.exec('delete from items');
          for (const [deleted, k] of rows) insert.run(deleted ? 1 : 0, k);
          const width = largest();
          const planned = run('plan', condition(c), width).row;
          const ordered = run('ordered', condition(c), width).row;
          const split = (p: string) => (p.match(new RegExp(`.{${width}}`, 'g')) ?? []).sort();
          // The same ids whatever the order; the store uses the plan's only when they ascend.
          expect(split(planned.packed ?? '')).toEqual(split(ordered.packed ?? ''));
          if (idsAscend(planned.packed ?? '', width)) expect(planned.packed).toBe(ordered.packed);
          else expect(alwaysInOrder).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
