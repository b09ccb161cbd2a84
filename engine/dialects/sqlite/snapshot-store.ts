import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import { compiledByKey, compiledFamily, compiledOnce } from '../../compiled-queries.ts';
import { CURSOR_TABLE, cursorFiller, deleteCursor, pageReader, sweepCursors, touchCursor } from '../../cursor/cursor-rows.ts';
import { ascendingRuns, deltaChunks, unpack } from '../../cursor/ascending-ids.ts';
import { DELTA_ID_LIMIT } from '../../cursor/deltas.ts';
import {
  chunksOf,
  LAZY,
  idsAscend,
  idsAt,
  idsPerChunk,
  limitOf,
  maxHoles,
  offsetOf,
  rangedWidth,
  widthFor,
  WIDTHS,
} from '../../cursor/layout.ts';
import {
  firstPageJson,
  idValue,
  largestIdQuery,
  pageOneWithIds,
  rangedTries,
  readsTableInIdOrder,
  readsWholeTable,
  widthCte,
} from '../../cursor/snapshot-sql.ts';
import type { Snapshot, SnapshotArgs, SnapshotStore } from '../../cursor/snapshot-store.ts';
import { Lru } from '../../lru.ts';
import { lazyMarkOf, raiseLazyMark } from '../../cursor/lazy-mark.ts';
import { orderBySql } from '../order-by.ts';
import type { TenantDb } from '../types.ts';
import { highestSeqSql } from './event-log.ts';
import { opaqueValues } from './opaque-values.ts';

/**
 * SQLite's snapshots. One SELECT packs the ids (layout.ts) in one ordered pass and brings the
 * packed text back; the application cuts it into chunk rows, which go in with one INSERT (a
 * transaction of several for very large snapshots): in-process, that costs a string copy, and
 * the INSERT is cheaper than slicing in SQL. The head row alone carries the query, the only
 * metadata too large to repeat. Conditions are written as opaqueValues writes them.
 */
export const sqliteSnapshots: SnapshotStore = {
  create: (t, args) => snapshot(t, args),
  createLazy: (t, args) => lazySnapshot(t, args),
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

/** The search's condition as the snapshot statement writes it. */
const whereOf = (args: SnapshotArgs) => (eb: any) => opaqueValues(args.where(eb));

/**
 * How a search's ids are packed: `scan` a plain scan of the table (readsTableInIdOrder), `plan`
 * the planner's plan fed straight to the aggregate (any other search in ascending id order),
 * `ordered` an ordered sub-select (the rest, and any search whose plan did not give id order).
 * Scan and plan are checked, and packed again ordered when they are not ascending.
 */
export type Packing = 'scan' | 'plan' | 'ordered';

/** The searches whose plan gave ids out of order (a range or IN lookup): packed ordered at once. */
const outOfOrderPlans = new Lru<true>(500);

/** How this search packs first (see Packing). */
function packingOf(args: SnapshotArgs): Packing {
  if (args.order.field !== 'id' || args.order.direction !== 'asc') return 'ordered';
  if (readsTableInIdOrder(args)) return 'scan';
  return outOfOrderPlans.get(args.searchKey) ? 'ordered' : 'plan';
}

/**
 * Whether a packing came back in ascending id order. A scan reads in one direction, so its first
 * two ids tell; a plan may run through several ranges of an index, so every id is compared.
 */
const inIdOrder = (packing: Packing, packed: string, width: number) =>
  idsAscend(packing === 'plan' ? packed : packed.slice(0, 2 * width), width);

/**
 * The concatenation of `value` over the rows of `table` matching `where`, in the order SQLite
 * reads them: fed straight to the aggregate, rows skip the ordered sub-select's co-routine. A
 * table scan without an index (NOT INDEXED, when `scan`) visits rows in rowid order, which `id`
 * is. The planner's own plan gives id order too when it looks up equal values in an index (whose
 * entries end with the rowid). Neither order is one SQL promises (a range or IN lookup, PRAGMA
 * reverse_unordered_selects): the caller checks the order it got. BENCHMARKS.md has the figures.
 */
const concatInIdOrder = (table: string, where: Expression<SqlBool>, value: Expression<unknown>, scan: boolean) =>
  sql<string>`(select coalesce(group_concat(${value}, ''), '') from ${sql.table(table)}${sql.raw(scan ? ' not indexed' : '')} where ${where})`;

/**
 * The packed ids, as `packing` says. Each id is offset by the width's base (layout.ts): the `w`
 * CTE's, or `width`'s as a literal, which spares SQLite a scalar sub-query per row (and fresh
 * memory for its text each time).
 */
function packedIds(t: TenantDb, args: SnapshotArgs, packing: Packing = 'ordered', width?: number) {
  const where = whereOf(args);
  const value = idValue(width);
  if (packing !== 'ordered') return concatInIdOrder(args.table, where(expressionBuilder()), value, packing === 'scan');
  if (readsWholeTable(args) && args.order.field !== 'id') return emptyLastInParts(t, args, where, value);
  return t.dialect.concatInOrder(t.db.selectFrom(args.table).where(where), value, orderBySql(args.order));
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
function emptyLastInParts(t: TenantDb, args: SnapshotArgs, where: (eb: any) => Expression<SqlBool>, value: Expression<unknown>) {
  const field = sql.ref(args.order.field);
  const part = (empty: boolean) =>
    t.dialect.concatInOrder(
      t.db
        .selectFrom(args.table)
        .where(where)
        .where(sql<boolean>`${field} is ${sql.raw(empty ? '' : 'not ')}null`),
      value,
      empty ? sql`${sql.ref('id')} asc` : sql`${field} ${sql.raw(args.order.direction)}, ${sql.ref('id')} asc`,
    );
  const [first, second] = args.order.direction === 'asc' ? [part(false), part(true)] : [part(true), part(false)];
  return sql<string>`(${first} || ${second})`;
}

/** The feed's seq the snapshot reflects, read in the packing statement itself (SPEC 9: lists join the feed). */
const changeSeq = highestSeqSql();

/**
 * The SELECT that packs a search's ids at `width`. It also gives the width the table's ids need
 * as it reads them: packed ids are only good when the two agree. Without `width`, at the width
 * it reads (slower: see packedIds).
 */
export const packStatement = (t: TenantDb, args: SnapshotArgs, packing: Packing, width?: number, pageEnd?: number) =>
  sql<{ width: number; packed: string | null; page: string | null; change_seq: unknown }>`with ${widthCte(t, args.table)}
    select (select w.width from w) as width, ${packedIds(t, args, packing, width)} as packed,
      ${pageEnd === undefined ? sql`null` : firstPageJson(t, args, pageEnd, whereOf(args))} as page,
      ${changeSeq} as change_seq`.compile(t.db);

/** The slot of a tenant's state (TenantState) holding the width each table's ids were last packed at: the next search's first guess. */
const LAST_WIDTHS = {};

const widthsOf = (t: TenantDb) => t.state.get(LAST_WIDTHS, () => new Map<string, number>());

const largestId = compiledFamily<[], { m: number | null }>((table, db) => largestIdQuery(db, table).compile());

async function widthGuess(t: TenantDb, table: string): Promise<number> {
  const widths = widthsOf(t);
  let width = widths.get(table);
  if (width === undefined) widths.set(table, (width = widthFor(Number((await largestId(table, t.db)).rows[0]?.m ?? 0))));
  return width;
}

/** Chunk rows per INSERT: 12 parameters a row stays far below SQLite's limit. */
const ROWS_PER_INSERT = 500;

const CHUNK_COLUMNS = [
  'id',
  'chunk',
  'total',
  'width',
  'collection',
  'scope',
  'owner',
  'query',
  'page_size',
  'expires_at',
  'ids',
  'change_seq',
] as const;

/** An INSERT of n chunk rows (the key), compiled once per n. */
const insertChunks = compiledFamily<unknown[]>((n, db, ...values) => {
  const rows = [];
  for (let r = 0; r < Number(n); r++) rows.push(Object.fromEntries(CHUNK_COLUMNS.map((c, i) => [c, values[r * CHUNK_COLUMNS.length + i]])));
  return db.insertInto(CURSOR_TABLE).values(rows).compile();
});

/** A search's snapshot statement, compiled once while it stays among the recent ones. */
const snapshotQueries = compiledByKey(500);

/**
 * The statement that reads a ranged snapshot (layout.ts) of a search that reads the whole table
 * in id order, at `width`: the table's least and largest ids (two primary-key lookups), its row
 * count (SQLite counts a b-tree's entries without reading them) and the first holes (the rows
 * the search does not match: the deleted ones, from their partial index), in id order. When the
 * rows fill the range from the least id to the largest, every id between is a row, and the
 * snapshot is the ends and the holes: it costs the count of a b-tree's entries and a read of a
 * few hundred index entries at most, less than the search's own COUNT, which reads every row.
 */
export const rangeStatement = (t: TenantDb, args: SnapshotArgs, width: number, pageEnd?: number) => {
  const table = sql.table(args.table);
  // The whole table's holes: its deleted rows (literally `deleted = 1`, which its partial index of
  // them serves: schema/table.ts), or none with $deleted.
  const holes = args.query.deleted ? sql`0` : sql`deleted = 1`;
  const end = (fn: 'min' | 'max') => sql`(select ${sql.raw(fn)}(id) from ${table})`;
  const base = sql.lit(offsetOf(width));
  return sql<{
    width: number;
    rows: number;
    lo: number | null;
    hi: number | null;
    ends: string | null;
    holes: string | null;
    page: string | null;
    change_seq: unknown;
  }>`with ${widthCte(t, args.table)}
    select (select w.width from w) as width, (select count(*) from ${table}) as rows, ${end('min')} as lo, ${end('max')} as hi,
      (${end('min')} + ${base}) || (${end('max')} + ${base}) as ends,
      (select group_concat(v, '') from (select id + ${base} as v from ${table} where ${holes}
        order by id limit ${sql.lit(maxHoles(width) + 1)})) as holes,
      ${pageEnd === undefined ? sql`null` : firstPageJson(t, args, pageEnd, whereOf(args))} as page,
      ${changeSeq} as change_seq`.compile(t.db);
};

/**
 * A ranged snapshot of the search (layout.ts), written; undefined when its ids are not one (or
 * it does not read the whole table in id order).
 */
async function rangedSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | undefined> {
  if (!readsTableInIdOrder(args) || !rangedTries.due(t, args.searchKey)) return undefined;
  const withPage = pageOneWithIds(args);
  let width = await widthGuess(t, args.table);
  for (let attempt = 0; attempt < 3; attempt++) {
    const key = `${args.searchKey}\0${width}\0ranged${withPage ? `\0${args.end}` : ''}`;
    const { rows } = await snapshotQueries(t.db, key, () => rangeStatement(t, args, width, withPage ? args.end : undefined));
    const row = rows[0]!;
    if (Number(row.width) !== width) {
      widthsOf(t).set(args.table, (width = Number(row.width)));
      continue;
    }
    const count = Number(row.rows);
    const holeIds = row.holes ?? '';
    const holes = holeIds.length / width;
    const ranged = count > 0 && count === Number(row.hi) - Number(row.lo) + 1 && holes <= maxHoles(width);
    if (!ranged) {
      rangedTries.failed(t, args.searchKey);
      return undefined;
    }
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

/** Writes a snapshot's chunk rows: one INSERT, or a transaction of several for very large snapshots. */
async function insertSnapshot(t: TenantDb, args: SnapshotArgs, width: number, total: number, changeSeq: number, chunks: readonly string[]) {
  const b = args.binding;
  const query = JSON.stringify(args.query);
  // Values row after row, in CHUNK_COLUMNS order.
  const values = (from: number, to: number) => {
    const out: unknown[] = [];
    for (let chunk = from; chunk < to; chunk++)
      out.push(
        args.id,
        chunk,
        total,
        width,
        b.collection,
        b.scope,
        b.owner,
        chunk === 0 ? query : '',
        args.query.limit,
        args.expiresAt,
        chunks[chunk],
        chunk === 0 ? changeSeq : null,
      );
    return out;
  };
  const count = chunks.length;
  if (count <= ROWS_PER_INSERT) await insertChunks(String(count), t.db, ...values(0, count));
  else
    await t.db.transaction().execute(async (trx) => {
      for (let from = 0; from < count; from += ROWS_PER_INSERT) {
        const to = Math.min(count, from + ROWS_PER_INSERT);
        await insertChunks(String(to - from), trx, ...values(from, to));
      }
    });
}

async function snapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot> {
  const ranged = await rangedSnapshot(t, args);
  if (ranged) return ranged;
  const { db } = t;
  const withPage = pageOneWithIds(args);
  /** The packed ids and the width they need, from the statement built for `width` (or none). */
  const packAt = async (packing: Packing, width?: number) => {
    const key = `${args.searchKey}\0${width ?? 'w'}\0${packing}${withPage ? `\0${args.end}` : ''}`;
    const { rows } = await snapshotQueries(db, key, () => packStatement(t, args, packing, width, withPage ? args.end : undefined));
    return {
      width: Number(rows[0]!.width),
      packed: rows[0]!.packed ?? '',
      page: rows[0]!.page ?? undefined,
      changeSeq: Number(rows[0]!.change_seq),
    };
  };
  const pack = async (how: Packing) => {
    let width = await widthGuess(t, args.table);
    for (let attempt = 0; attempt < 3; attempt++) {
      const packing = await packAt(how, width);
      if (packing.width === width) return packing;
      // The table's ids outgrew the guess: again at the width they need.
      widthsOf(t).set(args.table, (width = packing.width));
    }
    // Still outgrowing it (ids racing past width boundaries): the offset the statement reads
    // itself, right by construction.
    return packAt(how);
  };
  const how = packingOf(args);
  let packing = await pack(how);
  // A scan's or a plan's order is not one SQL promises. Ids written as deltas are read here
  // anyway: when they are not ascending, they are sorted here (a sort of numbers, cheaper than
  // SQLite's sort of rows). The rest are packed again by the ordered sub-select (and this search
  // so from now on, when it was the plan's).
  if (how !== 'ordered' && packing.width > MAX_DELTA_WIDTH && !inIdOrder(how, packing.packed, packing.width)) {
    if (how === 'plan') outOfOrderPlans.set(args.searchKey, true);
    packing = await pack('ordered');
  }
  const { width, packed, page, changeSeq: seq } = packing;
  const total = packed.length / width;
  const span = { start: args.start, end: Math.min(args.end, total) };
  if (width <= MAX_DELTA_WIDTH) {
    // As deltas: a fraction of the bytes to write, for a pass over the ids here. Ids in id order
    // (any packing but `ordered`) are distinct and ascending once merged: ascending deltas, the
    // densest. Everything is read off the scratch arrays before the INSERT's await.
    const ids = unpack(packed, width);
    const ascending = how !== 'ordered';
    const inOrder = ascending ? ascendingRuns(ids) : ids;
    const { width: layout, chunks } = deltaChunks(inOrder, ascending);
    const records = page !== undefined ? { json: page } : { ids: Array.from(inOrder.subarray(span.start, span.end)) };
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

/** The widest packed ids that deltas take (deltas.ts's DELTA_ID_LIMIT). */
const MAX_DELTA_WIDTH = WIDTHS.findLast((w) => limitOf(w) <= DELTA_ID_LIMIT)!;

/**
 * The statement of a lazy cursor (engine/cursor/lazy.ts): the search's COUNT, page 1, the feed's
 * seq and the table's largest id, in one read of the database.
 */
const lazyStatement = (t: TenantDb, args: SnapshotArgs) => {
  const table = sql.table(args.table);
  const where = whereOf(args);
  return sql<LazyRead>`select
    (select count(*) from ${table} where ${where(expressionBuilder())}) as total,
    ${firstPageJson(t, args, args.end, where)} as page, ${changeSeq} as change_seq,
    (select max(id) from ${table}) as largest, ${lazyMarkOf(t.db, args.table)} as marked_until`.compile(t.db);
};

interface LazyRead {
  total: unknown;
  page: string;
  change_seq: unknown;
  largest: unknown;
  marked_until: unknown;
}

/** A lazy cursor's head row: chunk 0 without ids, with its seq and the largest id. */
const insertLazyHead = compiledOnce<unknown[]>((db, ...values) =>
  db
    .insertInto(CURSOR_TABLE)
    .values(Object.fromEntries([...CHUNK_COLUMNS, 'as_of_id'].map((c, i) => [c, values[i]])))
    .compile(),
);

async function lazySnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot> {
  // A ranged snapshot costs about the COUNT a lazy one reads anyway, and needs no making later.
  const ranged = await rangedSnapshot(t, args);
  if (ranged) return ranged;
  const read = async () =>
    (await snapshotQueries(t.db, `${args.searchKey}\0lazy\0${args.end}`, () => lazyStatement(t, args))).rows[0] as LazyRead;
  let row = await read();
  // Writes keep the rows this cursor needs only while the collection's mark lasts: raised first
  // when it ends too soon, then the seq read again after it (cursor/lazy-mark.ts).
  if (Number(row.marked_until ?? 0) < args.expiresAt) {
    await raiseLazyMark(args.table, t.db, args.markUntil);
    row = await read();
  }
  const total = Number(row.total);
  const seq = Number(row.change_seq);
  const b = args.binding;
  await insertLazyHead(
    t.db,
    args.id,
    0,
    total,
    LAZY,
    b.collection,
    b.scope,
    b.owner,
    JSON.stringify(args.query),
    args.query.limit,
    args.expiresAt,
    '',
    seq,
    Number(row.largest ?? 0),
  );
  return { total, records: { json: row.page }, changeSeq: seq };
}
