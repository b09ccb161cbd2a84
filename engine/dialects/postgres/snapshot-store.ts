import { expressionBuilder, sql } from 'kysely';
import { compiledStatement } from '../../compiled-queries.ts';
import { ascendingChunks, ascendingRuns, parseHexIds } from '../../cursor/ascending-ids.ts';
import { CURSOR_TABLE, cursorFiller, deleteCursor, pageReader, storedQuery, sweepCursors, touchCursor } from '../../cursor/cursor-rows.ts';
import { ASCENDING_DELTAS, idsAt, LAZY, idsPerChunkSql, maxHolesSql, RANGED } from '../../cursor/layout.ts';
import {
  firstPageJson,
  idValue,
  pageOneWithIds,
  readsTableInIdOrder,
  sqlSetup,
  widthCte,
  type SqlSetup,
} from '../../cursor/snapshot-sql.ts';
import type { Search, Snapshot, SnapshotArgs, SnapshotStore } from '../../cursor/snapshot-store.ts';
import { MAX_LIMIT } from '../../query/reserved.ts';
import type { Strategy } from '../../cursor/strategy.ts';
import { orderBySql } from '../order-by.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';
import { chunkIds } from './chunk-ids.ts';
import { writeCursorHead } from './cursor-heads.ts';
import { numberedHighest, numbering, numberingLost, NUMBERING_TRIES } from './event-log.ts';

/**
 * PostgreSQL's snapshots: a search in ascending id order reads its ids in one statement and
 * writes them as ascending deltas (deltaSnapshot); any other order is one INSERT ... SELECT that
 * packs its ids and cuts them into chunk rows (chunk-ids.ts), so the ids never leave the
 * database; page reads turn a chunk into layout.ts's packed text, or read its deltas.
 */
export const postgresSnapshots: SnapshotStore = {
  take: (t, args, strategy) => numbered(TAKES[strategy], t, args),
  // Below it, a search in id order's second round trip and the ids' text cost the application
  // more than sorting and writing a few hundred ids cost the database (BENCHMARKS.md, "New
  // searches at any size").
  ascendingFrom: 2000,
  // A lazy cursor's chunks are text (any layout: the width says which), as ascending deltas are.
  fill: cursorFiller(() => ({
    text: 'deltas',
    others: { ids: sql`'{}'` },
    rows: (list) => sql`(select u.d, u.n from unnest(cast(${list} as text[])) with ordinality as u (d, n))`,
    list: (texts) => texts,
  })),
  // A chunk of ascending deltas is text of its own (`deltas`); any other is packed from `ids`.
  readPage: pageReader(() => ({ ids: sql<string>`coalesce(deltas, ${chunkIds.text(sql.ref('ids'))})`.as('ids'), condition: (c) => c })),
  touch: touchCursor,
  delete: deleteCursor,
  sweep: sweepCursors,
};

/** A search's statement's shape: the search, the tenant's schema, page 1's end when the statement reads page 1. */
interface SearchShape {
  readonly search: Search;
  readonly schema: string | undefined;
  readonly end: number | undefined;
}

/** Searches whose snapshot statements each kind keeps compiled, the most recently used. */
const SEARCHES_KEPT = 500;

/** A new cursor's own values, as its head row keeps them. */
interface HeadValues {
  id: string;
  collection: string;
  scope: string;
  owner: string;
  query: string;
  limit: number;
  expiresAt: number;
}

const headValues = (args: SnapshotArgs): HeadValues => ({
  id: args.id,
  collection: args.binding.collection,
  scope: args.binding.scope,
  owner: args.binding.owner,
  query: storedQuery(args.query),
  limit: args.query.limit,
  expiresAt: args.expiresAt,
});

const shapeOf = (t: TenantDb, args: SnapshotArgs, withPage: boolean): SearchShape => ({
  search: args.search,
  schema: t.schema,
  end: withPage ? args.end : undefined,
});

/** The search's condition and page 1 (or null), as a statement of this shape writes them. */
const searchParts = (t: SqlSetup, { search, end }: SearchShape) => {
  const where = search.sql.where(search, t.flavour);
  return { where, page: end === undefined ? sql`null` : firstPageJson(t, search, end, where) };
};

/** Column names of the snapshot statement's own values: no field name has a `$` (define.ts). */
const TOTAL = '$total';
const CHANGE_SEQ = '$change_seq';

/**
 * A ranged snapshot (layout.ts) of a search that reads the whole table in id order, written in
 * one statement when its ids are one; undefined when they are not, or for any other search
 * (nothing written). The table's least and largest ids come from the primary key, the matching
 * rows' COUNT and the first holes (rows the search does not match: deleted ones, read from the
 * live list's index on `deleted, id`) from the index: when the two add up to every id between
 * the ends, those are the ids, and the snapshot costs about the search's COUNT.
 */
const rangedStatement = compiledStatement<SearchShape, HeadValues, Record<string, unknown>>(
  'snapshot ranged',
  (db, shape, p) => {
    const { search } = shape;
    const t = sqlSetup(db, shape.schema);
    const { where, page } = searchParts(t, shape);
    const table = tableRef(t, search.resource.name);
    // The list without filters matches the live rows, or with $deleted every row: its holes are
    // the deleted rows, or none.
    const holesWhere = search.deleted ? sql`false` : sql`deleted = true`;
    return sql<Record<string, unknown>>`with
    ${widthCte(t, search.resource.name)},
    ${numbering(t)},
    r as materialized (select (select min(id) from ${table}) as lo, (select max(id) from ${table}) as hi,
      (select count(*) from ${table} where ${where(expressionBuilder())}) as live,
      (select coalesce(array_agg(h.v), '{}') from (select id + w.base as v from ${table} where ${holesWhere}
        order by id limit ${sql.raw(maxHolesSql('(select w.width from w)'))} + 1) as h) as holes,
      ${numberedHighest} as change_seq
      from w),
    ok as (select r.*, r.live + cardinality(r.holes) = r.hi - r.lo + 1 and cardinality(r.holes) <= ${sql.raw(maxHolesSql('w.width'))} as ranged from r, w),
    ins as (insert into ${tableRef(t, CURSOR_TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq)
      select ${p.id}, 0, ok.live, w.width + ${sql.lit(RANGED)}, ${p.collection}, ${p.scope}, ${p.owner}, ${p.query}, cast(${p.limit} as integer),
        cast(${p.expiresAt} as bigint), array[ok.lo + w.base, ok.hi + w.base] || ok.holes, ok.change_seq
      from ok, w where ok.ranged and ok.change_seq is not null
      returning total, width, ${chunkIds.text(sql.ref('ids'))} as ids, change_seq)
    select ins.total as ${sql.id(TOTAL)}, ins.change_seq as ${sql.id(CHANGE_SEQ)}, ins.width, ins.ids,
      ${page} as json, (select r.change_seq is null from r) as lost
    from (select 1) as one left join ins on true`;
  },
  SEARCHES_KEPT,
);

/** The ranged snapshot, or undefined (nothing written) when the search does not read its table whole in id order or its ids are not one. */
async function rangedSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | typeof LOST | undefined> {
  if (!readsTableInIdOrder(args.search)) return undefined;
  const result = await rangedStatement.run(t.db, shapeOf(t, args, pageOneWithIds(args)), headValues(args));
  const row = result.rows[0] as {
    [TOTAL]: unknown;
    [CHANGE_SEQ]: unknown;
    width: unknown;
    ids: string | null;
    json: string | null;
    lost: boolean;
  };
  if (row.lost) return LOST;
  if (row.ids === null) return undefined;
  const total = Number(row[TOTAL]);
  const changeSeq = Number(row[CHANGE_SEQ]);
  if (row.json !== null) return { total, records: { json: row.json }, changeSeq };
  return { total, records: { ids: idsAt(new Map([[0, row.ids]]), Number(row.width), args.start, Math.min(args.end, total)) }, changeSeq };
}

/** A snapshot statement that changed nothing: another numbering of the feed committed after its snapshot. */
const LOST = Symbol('lost');

/**
 * A search's snapshot, whose statement also numbers the feed's events its own snapshot of the
 * database shows unnumbered (event-log.ts), so its X-Change-Seq covers exactly the changes it
 * reflects; run again when another numbering got in first (each such loss is another's progress).
 */
async function numbered(
  take: (t: TenantDb, args: SnapshotArgs) => Promise<Snapshot | typeof LOST | undefined>,
  t: TenantDb,
  args: SnapshotArgs,
): Promise<Snapshot | undefined> {
  for (let i = 0; i < NUMBERING_TRIES; i++) {
    const s = await take(t, args);
    if (s !== LOST) return s;
  }
  throw numberingLost();
}

/**
 * Chunk rows of ascending deltas, one INSERT for any number of them, each chunk a parameter of
 * its own (a text array would be escaped character by character in the application); `ids` holds
 * none. One statement per number of chunks, rounded up to a power of two past four (the rest
 * null, skipped), and database setup (a setup is one tenant schema).
 */
const insertDeltas = compiledStatement<
  { schema: string | undefined; slots: number },
  HeadValues & { total: number; changeSeq: number; texts: readonly (string | null)[] }
>('snapshot deltas chunks', (db, { schema, slots }, p) => {
  const texts = Array.from({ length: slots }, (_, i) => sql`cast(${p.texts.at(i)} as text)`);
  return sql`insert into ${tableRef({ schema }, CURSOR_TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq, deltas)
      select ${p.id}, c.n - 1, cast(${p.total} as integer), ${sql.lit(ASCENDING_DELTAS)}, ${p.collection}, ${p.scope}, ${p.owner},
        case when c.n = 1 then ${p.query} else '' end, cast(${p.limit} as integer), cast(${p.expiresAt} as bigint), '{}',
        case when c.n = 1 then cast(${p.changeSeq} as bigint) end, c.d
      from unnest(array[${sql.join(texts)}]) with ordinality as c (d, n) where c.d is not null`;
});

/** The statement that reads a search's ids in hexadecimal, in the order its plan gives them, with the feed's seq and page 1. */
const deltaIdsStatement = compiledStatement<SearchShape, object, { ids: string; change_seq: unknown; json: string | null }>(
  'snapshot deltas ids',
  (db, shape) => {
    const t = sqlSetup(db, shape.schema);
    const { where, page } = searchParts(t, shape);
    const ids = db
      .selectFrom(shape.search.resource.name)
      .where(where)
      .select(sql<string>`coalesce(string_agg(to_hex(id), ','), '')`.as('v'));
    return sql<{ ids: string; change_seq: unknown; json: string | null }>`with ${numbering(t)}
      select (${ids}) as ids, ${numberedHighest} as change_seq, ${page} as json`;
  },
  SEARCHES_KEPT,
);

/**
 * A search in ascending id order as ascending deltas (deltas.ts), as SQLite writes them. One
 * statement numbers the feed and reads the feed's seq, page 1 and the matching ids, in whatever
 * order its plan gives them (no sort: an IN list's index gives a few ascending runs, put in order
 * here) and in hexadecimal (PostgreSQL writes it faster than decimal); a second writes the chunk
 * rows, a character an id. Packing in SQL sorted every id and wrote eight bytes of each
 * (BENCHMARKS.md, "New searches at any size"). The snapshot is the ids the first statement read; the second only
 * keeps them. Undefined (nothing written) for any other order, or ids deltas do not take.
 */
async function deltaSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | typeof LOST | undefined> {
  if (args.search.order.field !== 'id' || args.search.order.direction !== 'asc') return undefined;
  const row = (await deltaIdsStatement.run(t.db, shapeOf(t, args, pageOneWithIds(args)), {})).rows[0]!;
  if (row.change_seq === null || row.change_seq === undefined) return LOST;
  const parsed = parseHexIds(row.ids);
  if (!parsed) return undefined;
  const ids = ascendingRuns(parsed);
  const total = ids.length;
  const changeSeq = Number(row.change_seq);
  // Read off the scratch arrays before the INSERT's await.
  const chunks = ascendingChunks(ids);
  const records = row.json !== null ? { json: row.json } : { ids: Array.from(ids.subarray(args.start, Math.min(args.end, total))) };
  const slots = chunks.length <= 4 ? chunks.length : 2 ** Math.ceil(Math.log2(chunks.length));
  const texts = Array.from({ length: slots }, (_, i) => chunks[i] ?? null);
  await insertDeltas.run(t.db, { schema: t.schema, slots }, { ...headValues(args), total, changeSeq, texts });
  return { total, records, changeSeq };
}

/**
 * Each strategy (engine/cursor/strategy.ts) as PostgreSQL takes it: `ordered` packs in SQL at a
 * fixed width, which is the reference.
 */
const TAKES: Record<Strategy, (t: TenantDb, args: SnapshotArgs) => Promise<Snapshot | typeof LOST | undefined>> = {
  reference: (t, args) => packedSnapshot(t, args),
  ranged: rangedSnapshot,
  lazy: (t, args) => lazySnapshot(t, args),
  ascending: deltaSnapshot,
  ordered: (t, args) => packedSnapshot(t, args),
};

/**
 * One statement packs the ids, cuts them into chunk rows and inserts them, and reads the rows of
 * the requested page: the ids never travel to the application, and a new search costs one
 * round trip. Answers one row: the total and the page's records as JSON (no row objects for pg
 * to parse, no dates to convert, nothing to stringify).
 */
const packedStatement = compiledStatement<SearchShape, HeadValues & { pageStart: number; pageEnd: number }, Record<string, unknown>>(
  'snapshot packed',
  (db, shape, p) => {
    const { search } = shape;
    const t = sqlSetup(db, shape.schema);
    const { where, page } = searchParts(t, shape);
    // The packed ids are one value of a one-row sub-select in FROM (fenced with OFFSET 0, so the
    // aggregate stays one InitPlan, run once), joined to the chunk numbers: every chunk row slices
    // that value in place. A materialized CTE held it in a tuplestore instead, which spilled a
    // million ids to a temporary file past work_mem, and each (select ... from m) read a copy of
    // it (BENCHMARKS.md).
    const perChunk = sql.raw(idsPerChunkSql('w.width'));
    // The feed's seq the snapshot reflects, read (and numbered up to) in this statement's snapshot
    // of the database: the head row keeps it for later pages (SPEC 9: lists join the feed).
    const changeSeq = numberedHighest;
    // RETURNING sees only the inserted row: its own width.
    const perChunkOfRow = sql.raw(idsPerChunkSql('width'));
    const packIds = chunkIds.pack(db.selectFrom(search.resource.name).where(where), idValue(), orderBySql(search.order));
    const withPage = shape.end !== undefined;
    return sql<Record<string, unknown>>`with
    ${widthCte(t, search.resource.name)},
    ${numbering(t)},
    ins as (insert into ${tableRef(t, CURSOR_TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq)
      select ${p.id}, n.chunk, packed.total, w.width, ${p.collection}, ${p.scope}, ${p.owner},
        case when n.chunk = 0 then ${p.query} else '' end, cast(${p.limit} as integer), cast(${p.expiresAt} as bigint),
        ${chunkIds.slice(sql`packed.ids`, sql`n.chunk * ${perChunk}`, perChunk)},
        case when n.chunk = 0 then ${changeSeq} end
      from w, (select q.ids, ${chunkIds.count(sql`q.ids`)} as total from (select ${packIds} as ids offset 0) as q) as packed,
        lateral generate_series(0, greatest(packed.total - 1, 0) / ${perChunk}) as n (chunk)
      where ${changeSeq} is not null
      returning chunk, total, change_seq${withPage ? sql`` : sql`, case when chunk between cast(${p.pageStart} as integer) / ${perChunkOfRow} and cast(${p.pageEnd} as integer) / ${perChunkOfRow} then ids end as ids`})
    ${
      withPage
        ? sql`select head.total as ${sql.id(TOTAL)}, head.change_seq as ${sql.id(CHANGE_SEQ)}, ${page} as json from (select total, change_seq from ins where chunk = 0) as head`
        : sql`,
    page (ord, id) as (select p.i, ${chunkIds.at(sql`ins.ids`, sql`p.i % ${perChunk}`)} - w.base
      from w, generate_series(0, ${sql.lit(MAX_LIMIT - 1)}) as k, lateral (select cast(${p.pageStart} as integer) + k as i) as p, ins
      where ins.chunk = p.i / ${perChunk} and p.i < cast(${p.pageEnd} as integer) and p.i < ins.total)
    select head.total as ${sql.id(TOTAL)}, head.change_seq as ${sql.id(CHANGE_SEQ)}, p.json from (select total, change_seq from ins where chunk = 0) as head
    cross join lateral (select '[' || coalesce(string_agg(${search.sql.recordJson(db, search, 'r')}, ',' order by page.ord), '') || ']' as json
      from page join ${tableRef(t, search.resource.name)} as r on r.id = page.id) as p`
    }`;
  },
  SEARCHES_KEPT,
);

/** A search's snapshot packed in SQL: one INSERT ... SELECT, the ids never leave the database. */
async function packedSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | typeof LOST> {
  const values = { ...headValues(args), pageStart: args.start, pageEnd: args.end };
  const result = await packedStatement.run(t.db, shapeOf(t, args, pageOneWithIds(args)), values);
  // The head row is always there (chunk 0 is inserted even for no ids), so is this row, unless
  // the statement lost its numbering and inserted nothing.
  const row = result.rows[0] as { [TOTAL]: unknown; [CHANGE_SEQ]: unknown; json: string } | undefined;
  if (!row) return LOST;
  return { total: Number(row[TOTAL]), records: { json: row.json }, changeSeq: Number(row[CHANGE_SEQ]) };
}

/**
 * A lazy cursor (engine/cursor/lazy.ts): one statement numbers the feed and reads the search's
 * COUNT, the table's largest id and page 1 in the same snapshot of the database (change_seq null
 * when its numbering lost); its head row is written after it (cursor-heads.ts).
 */
const lazyStatement = compiledStatement<SearchShape, object, Record<string, unknown>>(
  'snapshot lazy',
  (db, shape) => {
    const { search } = shape;
    const t = sqlSetup(db, shape.schema);
    const { where, page } = searchParts(t, shape);
    const table = tableRef(t, search.resource.name);
    return sql<Record<string, unknown>>`with
    ${numbering(t)}
    select (select count(*) from ${table} where ${where(expressionBuilder())}) as ${sql.id(TOTAL)},
      (select max(id) from ${table}) as largest, ${numberedHighest} as ${sql.id(CHANGE_SEQ)}, ${page} as json`;
  },
  SEARCHES_KEPT,
);

async function lazySnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | typeof LOST | undefined> {
  if (args.start !== 0) return undefined; // its statement answers page 1
  const row = (await lazyStatement.run(t.db, shapeOf(t, args, true), {})).rows[0] as Record<string, unknown>;
  if (row[CHANGE_SEQ] === null || row[CHANGE_SEQ] === undefined) return LOST;
  const [total, changeSeq] = [Number(row[TOTAL]), Number(row[CHANGE_SEQ])];
  const { id, collection, scope, owner, query, limit, expiresAt } = headValues(args);
  const largest = Number(row.largest ?? 0);
  const head = { id, total, width: LAZY, collection, scope, owner, query, page_size: limit, expires_at: expiresAt };
  await writeCursorHead(t, { ...head, change_seq: changeSeq, as_of_id: largest });
  return { total, records: { json: row.json as string }, changeSeq };
}
