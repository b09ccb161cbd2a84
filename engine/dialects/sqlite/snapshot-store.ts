import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import { cursorFiller, deleteCursor, pageReader, sweepCursors, touchCursor } from '../../cursor/cursor-rows.ts';
import { ascendingRuns, deltaChunks, unpack } from '../../cursor/ascending-ids.ts';
import { DELTA_ID_LIMIT } from '../../cursor/deltas.ts';
import { chunksOf, idsAt, idsPerChunk, limitOf, WIDTHS } from '../../cursor/layout.ts';
import { compiledStatement } from '../../compiled-queries.ts';
import {
  firstPageJson,
  idValue,
  pageOneWithIds,
  readsTableInIdOrder,
  readsWholeTable,
  sqlSetup,
  widthCte,
  type SqlSetup,
} from '../../cursor/snapshot-sql.ts';
import type { Search, Snapshot, SnapshotArgs, SnapshotStore } from '../../cursor/snapshot-store.ts';
import { searchStatsOf } from '../../cursor/search-stats.ts';
import type { Strategy } from '../../cursor/strategy.ts';
import { orderBySql } from '../order-by.ts';
import type { TenantDb } from '../types.ts';
import { lazySnapshot } from './lazy-snapshot.ts';
import { opaqueValues } from './opaque-values.ts';
import { rangedSnapshot } from './ranged-snapshot.ts';
import { changeSeq, insertSnapshot, SEARCHES_KEPT, whereOf, widthGuess } from './snapshot-parts.ts';

/**
 * SQLite's snapshots. One SELECT packs the ids (layout.ts) in one ordered pass and brings the
 * packed text back; the application cuts it into chunk rows, which go in with one INSERT (a
 * transaction of several for very large snapshots): in-process, that costs a string copy, and
 * the INSERT is cheaper than slicing in SQL. The head row alone carries the query, the only
 * metadata too large to repeat. Conditions are written as opaqueValues writes them.
 */
export const sqliteSnapshots: SnapshotStore = {
  take: (t, args, strategy) => TAKES[strategy](t, args),
  // Ids put in order here cost less than SQLite's sort of rows at any size.
  ascendingFrom: 0,
  fill: cursorFiller(() => ({
    text: 'ids',
    others: { change_seq: sql`null` },
    rows: (list) => sql`(select value as d, key + 1 as n from json_each(${list}))`,
    list: (texts) => JSON.stringify(texts),
  })),
  readPage: pageReader(() => ({ ids: sql.ref<string>('ids').as('ids'), condition: opaqueValues })),
  touch: touchCursor,
  delete: deleteCursor,
  sweep: sweepCursors,
};

/**
 * How a search's ids are packed: `scan` a plain scan of the table (readsTableInIdOrder), `plan`
 * the planner's plan fed straight to the aggregate (any other search in ascending id order),
 * `ordered` an ordered sub-select (any search). Scan and plan give ids in an order SQL does not
 * promise: the `ascending` strategy puts them in order.
 */
export type Packing = 'scan' | 'plan' | 'ordered';

/**
 * The concatenation of `value` over the rows of `table` matching `where`, in the order SQLite
 * reads them: fed straight to the aggregate, rows skip the ordered sub-select's co-routine. A
 * table scan without an index (NOT INDEXED, when `scan`) visits rows in rowid order, which `id`
 * is. The planner's own plan gives id order too when it looks up equal values in an index (whose
 * entries end with the rowid). Neither order is one SQL promises (a range or IN lookup, PRAGMA
 * reverse_unordered_selects): the caller puts the ids in order. BENCHMARKS.md has the figures.
 */
const concatInIdOrder = (table: string, where: Expression<SqlBool>, value: Expression<unknown>, scan: boolean) =>
  sql<string>`(select coalesce(group_concat(${value}, ''), '') from ${sql.table(table)}${sql.raw(scan ? ' not indexed' : '')} where ${where})`;

/**
 * The packed ids, as `packing` says. Each id is offset by the width's base (layout.ts): the `w`
 * CTE's, or `width`'s as a literal, which spares SQLite a scalar sub-query per row (and fresh
 * memory for its text each time).
 */
function packedIds(t: SqlSetup, search: Search, packing: Packing, width: number | undefined) {
  const where = whereOf(t, search);
  const value = idValue(width);
  const table = search.resource.name;
  if (packing !== 'ordered') return concatInIdOrder(table, where(expressionBuilder()), value, packing === 'scan');
  if (readsWholeTable(search) && search.order.field !== 'id') return emptyLastInParts(t, search, where, value);
  return t.flavour.concatInOrder(t.db.selectFrom(table).where(where), value, orderBySql(search.order));
}

/**
 * orderBySql's order (empty values as the largest, ties by id) as two ordered reads, the rows
 * with a value and those without, one after the other: SQLite's index of the field holds its
 * empty values first, so `nulls last` (or first, descending) makes it sort every row, where
 * `field, id` alone is the index's own order (an index's entries end with the rowid, which id
 * is). For a whole table only: there the index reads every row in order instead of a sort of
 * every row; under a filter the planner may take the field's index for the empty values and read
 * far more rows than the filter's own index would (BENCHMARKS.md).
 */
function emptyLastInParts(t: SqlSetup, search: Search, where: (eb: any) => Expression<SqlBool>, value: Expression<unknown>) {
  const { order } = search;
  const field = sql.ref(order.field);
  const part = (empty: boolean) =>
    t.flavour.concatInOrder(
      t.db
        .selectFrom(search.resource.name)
        .where(where)
        .where(sql<boolean>`${field} is ${sql.raw(empty ? '' : 'not ')}null`),
      value,
      empty ? sql`${sql.ref('id')} asc` : sql`${field} ${sql.raw(order.direction)}, ${sql.ref('id')} asc`,
    );
  const [first, second] = order.direction === 'asc' ? [part(false), part(true)] : [part(true), part(false)];
  return sql<string>`(${first} || ${second})`;
}

/** A packing statement's shape: its search, how it packs, the width it is built for, page 1's end when it reads page 1. */
export interface PackShape {
  readonly search: Search;
  readonly how: Packing;
  readonly width: number | undefined;
  readonly end: number | undefined;
}

interface PackRow {
  width: number;
  packed: string | null;
  page: string | null;
  change_seq: unknown;
}

/**
 * The SELECT that packs a search's ids at `width`. It also gives the width the table's ids need
 * as it reads them: packed ids are only good when the two agree. Without `width`, at the width
 * it reads (slower: see packedIds).
 */
export const packStatement = compiledStatement<PackShape, object, PackRow>(
  'snapshot pack',
  (db, { search, how, width, end }) => {
    const t = sqlSetup(db);
    return sql<PackRow>`with ${widthCte(t, search.resource.name)}
    select (select w.width from w) as width, ${packedIds(t, search, how, width)} as packed,
      ${end === undefined ? sql`null` : firstPageJson(t, search, end, whereOf(t, search))} as page,
      ${changeSeq} as change_seq`;
  },
  SEARCHES_KEPT,
);

/** A search's packed ids, the width they need, page 1 and the feed's seq, packed as `how` says. */
async function pack(t: TenantDb, args: SnapshotArgs, how: Packing) {
  const end = pageOneWithIds(args) ? args.end : undefined;
  /** From the statement built for `width` (or none: the offset it reads itself). */
  const packAt = async (width?: number) => {
    const { rows } = await packStatement.run(t.db, { search: args.search, how, width, end }, {});
    return {
      width: Number(rows[0]!.width),
      packed: rows[0]!.packed ?? '',
      page: rows[0]!.page ?? undefined,
      changeSeq: Number(rows[0]!.change_seq),
    };
  };
  let width = await widthGuess(t, args.search.resource.name);
  for (let attempt = 0; attempt < 3; attempt++) {
    const packing = await packAt(width);
    if (packing.width === width) return packing;
    // The table's ids outgrew the guess: again at the width they need.
    searchStatsOf(t).setWidth(args.search.resource.name, (width = packing.width));
  }
  // Still outgrowing it (ids racing past width boundaries): the offset the statement reads
  // itself, right by construction.
  return packAt();
}

/**
 * The `ascending` strategy: a search in id order packed from a scan or the planner's plan, whose
 * order SQL does not promise, put in order here (a sort of numbers, cheaper than SQLite's sort
 * of rows) and written as ascending deltas, the densest. Undefined for any other order, or ids
 * deltas do not take.
 */
async function ascendingSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | undefined> {
  if (args.search.order.field !== 'id' || args.search.order.direction !== 'asc') return undefined;
  const { width, packed, page, changeSeq } = await pack(t, args, readsTableInIdOrder(args.search) ? 'scan' : 'plan');
  if (width > MAX_DELTA_WIDTH) return undefined;
  // Everything is read off the scratch arrays before the INSERT's await.
  const ids = ascendingRuns(unpack(packed, width));
  const { width: layout, chunks } = deltaChunks(ids, true);
  const records = page !== undefined ? { json: page } : { ids: Array.from(ids.subarray(args.start, args.end)) };
  await insertSnapshot(t, args, layout, ids.length, changeSeq, chunks);
  return { total: ids.length, records, changeSeq };
}

/**
 * A search's ids in its order from the ordered sub-select: as deltas (`ordered`: a fraction of
 * the bytes to write, for a pass over the ids here) when they take them, else packed at a fixed
 * width, as the `reference` strategy always writes them.
 */
async function orderedSnapshot(t: TenantDb, args: SnapshotArgs, reference: boolean): Promise<Snapshot> {
  const { width, packed, page, changeSeq: seq } = await pack(t, args, 'ordered');
  const total = packed.length / width;
  const span = { start: args.start, end: Math.min(args.end, total) };
  if (!reference && width <= MAX_DELTA_WIDTH) {
    // Everything is read off the scratch array before the INSERT's await.
    const ids = unpack(packed, width);
    const { width: layout, chunks } = deltaChunks(ids, false);
    const records = page !== undefined ? { json: page } : { ids: Array.from(ids.subarray(span.start, span.end)) };
    await insertSnapshot(t, args, layout, total, seq, chunks);
    return { total, records, changeSeq: seq };
  }
  const chunkChars = width * idsPerChunk(width);
  const count = Math.max(1, Math.ceil(packed.length / chunkChars));
  const slice = (chunk: number) => packed.slice(chunk * chunkChars, (chunk + 1) * chunkChars);
  await insertSnapshot(
    t,
    args,
    width,
    total,
    seq,
    Array.from({ length: count }, (_, c) => slice(c)),
  );
  if (page !== undefined) return { total, records: { json: page }, changeSeq: seq };
  const { first, last } = chunksOf(span, width);
  const chunks = new Map<number, string>();
  for (let c = first; c <= last; c++) chunks.set(c, slice(c));
  return { total, records: { ids: idsAt(chunks, width, span.start, span.end) }, changeSeq: seq };
}

/** Each strategy (engine/cursor/strategy.ts) as SQLite takes it. */
const TAKES: Record<Strategy, (t: TenantDb, args: SnapshotArgs) => Promise<Snapshot | undefined>> = {
  reference: (t, args) => orderedSnapshot(t, args, true),
  ranged: rangedSnapshot,
  lazy: (t, args) => lazySnapshot(t, args),
  ascending: ascendingSnapshot,
  ordered: (t, args) => orderedSnapshot(t, args, false),
};

/** The widest packed ids that deltas take (deltas.ts's DELTA_ID_LIMIT). */
const MAX_DELTA_WIDTH = WIDTHS.findLast((w) => limitOf(w) <= DELTA_ID_LIMIT)!;
