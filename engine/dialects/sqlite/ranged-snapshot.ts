import { sql } from 'kysely';
import { idsAt, maxHoles, offsetOf, rangedWidth } from '../../cursor/layout.ts';
import { searchStatsOf } from '../../cursor/search-stats.ts';
import { compiledStatement } from '../../compiled-queries.ts';
import { firstPageJson, pageOneWithIds, readsTableInIdOrder, sqlSetup, widthCte } from '../../cursor/snapshot-sql.ts';
import type { Search, Snapshot, SnapshotArgs } from '../../cursor/snapshot-store.ts';
import type { TenantDb } from '../types.ts';
import { changeSeq, insertSnapshot, SEARCHES_KEPT, whereOf, widthGuess } from './snapshot-parts.ts';

/**
 * The statement that reads a ranged snapshot (layout.ts) of a search that reads the whole table
 * in id order, at `width`: the table's least and largest ids (two primary-key lookups), its row
 * count (SQLite counts a b-tree's entries without reading them) and the first holes (the rows
 * the search does not match: the deleted ones, from their partial index), in id order. When the
 * rows fill the range from the least id to the largest, every id between is a row, and the
 * snapshot is the ends and the holes: it costs the count of a b-tree's entries and a read of a
 * few hundred index entries at most, less than the search's own COUNT, which reads every row.
 */
export const rangeStatement = compiledStatement<{ search: Search; width: number; end: number | undefined }, object, RangeRow>(
  'snapshot ranged',
  (db, { search, width, end: pageEnd }) => {
    const t = sqlSetup(db);
    const table = sql.table(search.resource.name);
    // The whole table's holes: its deleted rows (literally `deleted = 1`, which its partial index of
    // them serves: schema/table.ts), or none with $deleted.
    const holes = search.deleted ? sql`0` : sql`deleted = 1`;
    const end = (fn: 'min' | 'max') => sql`(select ${sql.raw(fn)}(id) from ${table})`;
    const base = sql.lit(offsetOf(width));
    return sql<RangeRow>`with ${widthCte(t, search.resource.name)}
    select (select w.width from w) as width, (select count(*) from ${table}) as rows, ${end('min')} as lo, ${end('max')} as hi,
      (${end('min')} + ${base}) || (${end('max')} + ${base}) as ends,
      (select group_concat(v, '') from (select id + ${base} as v from ${table} where ${holes}
        order by id limit ${sql.lit(maxHoles(width) + 1)})) as holes,
      ${pageEnd === undefined ? sql`null` : firstPageJson(t, search, pageEnd, whereOf(t, search))} as page,
      ${changeSeq} as change_seq`;
  },
  SEARCHES_KEPT,
);

interface RangeRow {
  width: number;
  rows: number;
  lo: number | null;
  hi: number | null;
  ends: string | null;
  holes: string | null;
  page: string | null;
  change_seq: unknown;
}

/**
 * A ranged snapshot of the search (layout.ts), written; undefined when its ids are not one (or
 * it does not read the whole table in id order).
 */
export async function rangedSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | undefined> {
  if (!readsTableInIdOrder(args.search)) return undefined;
  const end = pageOneWithIds(args) ? args.end : undefined;
  let width = await widthGuess(t, args.search.resource.name);
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await rangeStatement.run(t.db, { search: args.search, width, end }, {});
    const row = rows[0]!;
    if (Number(row.width) !== width) {
      searchStatsOf(t).setWidth(args.search.resource.name, (width = Number(row.width)));
      continue;
    }
    const count = Number(row.rows);
    const holeIds = row.holes ?? '';
    const holes = holeIds.length / width;
    const ranged = count > 0 && count === Number(row.hi) - Number(row.lo) + 1 && holes <= maxHoles(width);
    if (!ranged) return undefined;
    const packed = row.ends! + holeIds;
    const total = count - holes;
    const seq = Number(row.change_seq);
    await insertSnapshot(t, args, rangedWidth(width), total, seq, [packed]);
    if (row.page !== null) return { total, records: { json: row.page }, changeSeq: seq };
    return {
      total,
      records: { ids: idsAt(new Map([[0, packed]]), rangedWidth(width), args.start, Math.min(args.end, total)) },
      changeSeq: seq,
    };
  }
  return undefined;
}
