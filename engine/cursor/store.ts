import { expressionBuilder, sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DatabaseChunkIds, TenantDb } from '../dialects/types.ts';
import type { CanonicalQuery } from '../query/canonical.ts';
import { MAX_LIMIT, type Reserved } from '../query/reserved.ts';
import { dialectOf } from '../dialects/index.ts';
import { orderBySql } from '../sql/order.ts';
import { prepared, preparedByKey, preparedFamily } from '../sql/prepared.ts';
import { jsonArrayOf } from '../sql/records-json.ts';
import { Lru } from '../lru.ts';
import { chunksOf, idsAscend, idsAt, idsPerChunk, idsPerChunkSql, limitOf, offsetOf, WIDTHS, widthFor } from './layout.ts';

const TABLE = 'mrs_cursors';

/** Table names in raw statements: Kysely's schema plugin only rewrites builder queries. */
const qualified = (t: TenantDb, name: string) => (t.schema === undefined ? sql.table(name) : sql.id(t.schema, name));

/** What binds a cursor: only the same collection, parent and user may use it. */
export interface CursorBinding {
  readonly collection: string;
  /** `''` for top-level lists, `parent/id` for child lists. */
  readonly scope: string;
  /** `''` when authentication is off. */
  readonly owner: string;
}

export interface CursorMeta extends CursorBinding {
  readonly total: number;
  readonly limit: number;
  readonly width: number;
  readonly query: CanonicalQuery;
  readonly expiresAt: number;
}

export interface CursorRead {
  readonly meta: CursorMeta;
  /** Chunk number -> packed ids, for the chunks asked for. */
  readonly chunks: Map<number, string>;
}


export interface SnapshotArgs {
  id: string;
  table: string;
  where: (eb: any) => Expression<SqlBool>;
  order: Reserved['order'];
  binding: CursorBinding;
  query: CanonicalQuery;
  expiresAt: number;
  /** Positions [start, end) of the page to answer with. */
  start: number;
  end: number;
  /** Determines the search completely (collection, scope, filters with their values, order, deleted). */
  searchKey: string;
  /**
   * A row of `table` (or of `alias`) as its record's JSON text: a snapshot may read the page's
   * records as JSON in its own statement (PageRecords).
   */
  recordJson: (alias?: string) => Expression<string>;
}

/**
 * The records of a page [start, end), in snapshot order: as a JSON array's text where the
 * statement that read the ids read them too (one round trip less), else the ids to read them by.
 */
export type PageRecords = { readonly json: string } | { readonly ids: readonly number[] };

export interface Snapshot {
  readonly total: number;
  readonly records: PageRecords;
}

/**
 * Snapshots the ordered ids of the matching rows: they are packed in one ordered pass (see
 * layout.ts) and cut into chunk rows, where the dialect says that is cheapest.
 */
export function insertSnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot> {
  const { chunkIds } = t.dialect;
  return chunkIds.cutIn === 'database' ? snapshotInDatabase(t, chunkIds, args) : snapshotThroughApplication(t, args);
}

/**
 * The width and offset that fit every id of the table (widthFor in SQL: the least width whose
 * limit is above the largest id), as CTEs `largest` and `w`. The narrowest width writes the
 * fewest bytes: 7 digits an id for a table of a million records instead of 10.
 */
function widthCte(t: TenantDb, table: string) {
  const maxId = largestIdQuery(t.db, table);
  const ladder = (value: (width: number) => number) =>
    sql`case ${sql.join(WIDTHS.map((w) => sql`when largest.v < ${sql.lit(limitOf(w))} then ${sql.lit(value(w))}`), sql` `)} end`;
  // Materialized: PostgreSQL would otherwise inline the largest id into each of the ladder's
  // 32 comparisons, each its own backward index scan.
  return sql`largest (v) as materialized (select coalesce((${maxId}), 0)),
    w (width, base) as (select ${ladder((w) => w)}, ${ladder(offsetOf)} from largest)`;
}

/**
 * Whether the search reads every row of the table (or every live one) in ascending id order: a
 * dialect may then pack them from a plain scan of the table (concatInIdOrder). A child list is
 * not one, even without filters: its parent link is a condition, which an index serves.
 */
export const readsTableInIdOrder = (args: Pick<SnapshotArgs, 'query' | 'order' | 'binding'>) =>
  args.binding.scope === '' && Object.keys(args.query.filters).length === 0 && args.order.field === 'id' && args.order.direction === 'asc';

/**
 * How a search's ids are packed in a dialect with concatInIdOrder: `scan` a plain scan of the
 * table (readsTableInIdOrder), `plan` the planner's plan fed straight to the aggregate (any
 * other search in ascending id order), `ordered` an ordered sub-select (the rest, and any
 * search whose plan did not give id order). Scan and plan are checked, and packed again ordered
 * when they are not ascending.
 */
export type Packing = 'scan' | 'plan' | 'ordered';

/** The searches whose plan gave ids out of order (a range or IN lookup): packed ordered at once. */
const outOfOrderPlans = new Lru<true>(500);

/** How this search packs first (see Packing). */
function packingOf(t: TenantDb, args: SnapshotArgs): Packing {
  if (!t.dialect.concatInIdOrder || args.order.field !== 'id' || args.order.direction !== 'asc') return 'ordered';
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
 * The packed ids, as `packing` says (an ordered sub-select where the dialect has no
 * concatInIdOrder). Each id is offset by the width's base (layout.ts): the `w` CTE's, or `width`'s as a
 * literal, which spares SQLite a scalar sub-query per row (a search of 499 ids 648,000 -> 608,000
 * instructions, a million 1,060 -> 938 million, and no fresh memory for its text each time).
 */
const packedIds = (t: TenantDb, args: SnapshotArgs, packing: Packing = 'ordered', width?: number) => {
  const { where, value } = idsOf(t, args, width);
  if (packing !== 'ordered' && t.dialect.concatInIdOrder) return t.dialect.concatInIdOrder(args.table, where(expressionBuilder()), value, packing === 'scan');
  return t.dialect.concatInOrder(t.db.selectFrom(args.table).where(where), value, orderBySql(args.order));
};

/** The search's condition, and the value each matching row packs: its id plus the width's base. */
function idsOf(t: TenantDb, args: SnapshotArgs, width?: number) {
  return {
    where: (eb: any) => t.dialect.opaqueValues(args.where(eb)),
    value: sql`${sql.ref('id')} + ${width === undefined ? sql`(select w.base from w)` : sql.lit(offsetOf(width))}`,
  };
}

/**
 * The SELECT that packs a search's ids at `width` (where the dialect cuts chunks in the
 * application). It also gives the width the table's ids need as it reads them: packed ids are
 * only good when the two agree. Without `width`, at the width it reads (slower: see packedIds).
 */
export const packStatement = (t: TenantDb, args: SnapshotArgs, packing: Packing, width?: number, pageEnd?: number) =>
  sql<{ width: number; packed: string | null; page: string | null }>`with ${widthCte(t, args.table)}
    select (select w.width from w) as width, ${packedIds(t, args, packing, width)} as packed,
      ${pageEnd === undefined ? sql`null` : firstPageJson(t, args, pageEnd)} as page`.compile(t.db);

/**
 * The first `end` records of the search, in its order, as a JSON array's text: page 1 read in
 * the packing statement itself (one statement less, no ids to look up again, and the same read
 * of the database as the ids). The limit is a literal: SQLite runs the sub-select three times
 * slower with it as a parameter (~60 against ~20 us for ten records of a 499-record search).
 */
function firstPageJson(t: TenantDb, args: SnapshotArgs, end: number) {
  const rows = t.db
    .selectFrom(args.table)
    .where((eb: any) => t.dialect.opaqueValues(args.where(eb)))
    .limit(sql.lit(end));
  return jsonArrayOf(t.dialect, rows, args.recordJson(), orderBySql(args.order));
}

/**
 * Whether the snapshot's statement reads the requested page with firstPageJson: page 1 of a
 * search in id order, the first rows of the same ordered read as the ids. Any other order would
 * sort the matching rows a second time, and a later page would skip rows: there the page's ids,
 * cut from the packed ones, are the cheaper way to its rows. On PostgreSQL this also spares
 * cutting page 1's ids from the inserted chunk and joining them back (the whole statement 1.24-1.43
 * against 0.93-0.98 ms in psql, 499 matches).
 */
const pageOneWithIds = (args: SnapshotArgs) => args.start === 0 && args.order.field === 'id';

/** The width each table's ids were last packed at, per database: the next search's first guess. */
const lastWidths = new WeakMap<Kysely<any>, Map<string, number>>();

/** The table's largest id, as `m` (null when the table is empty). */
const largestIdQuery = (db: Kysely<any>, table: string) => db.selectFrom(table).select((eb) => eb.fn.max('id').as('m'));

const largestId = preparedFamily<[], { m: number | null }>((table, db) => largestIdQuery(db, table).compile());

function widthsOf(db: Kysely<any>): Map<string, number> {
  let widths = lastWidths.get(db);
  if (!widths) lastWidths.set(db, (widths = new Map()));
  return widths;
}

async function widthGuess(db: Kysely<any>, table: string): Promise<number> {
  const widths = widthsOf(db);
  let width = widths.get(table);
  if (width === undefined) widths.set(table, (width = widthFor(Number((await largestId(table, db)).rows[0]?.m ?? 0))));
  return width;
}

/** Chunk rows per INSERT: 11 parameters a row stays far below every database's limit. */
const ROWS_PER_INSERT = 500;

const CHUNK_COLUMNS = ['id', 'chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'page_size', 'expires_at', 'ids'] as const;

/** An INSERT of n chunk rows (the key), compiled once per n. */
const insertChunks = preparedFamily<unknown[]>((n, db, ...values) => {
  const rows = [];
  for (let r = 0; r < Number(n); r++)
    rows.push(Object.fromEntries(CHUNK_COLUMNS.map((c, i) => [c, values[r * CHUNK_COLUMNS.length + i]])));
  return db.insertInto(TABLE).values(rows).compile();
});

/** A search's snapshot statement, compiled once while it stays among the recent ones. */
const snapshotQueries = preparedByKey(500);

/**
 * One SELECT packs the ids and brings the packed text back; the chunk rows go in with one
 * INSERT (a transaction of several for very large snapshots). The head row alone carries the
 * query, the only metadata too large to repeat.
 */
async function snapshotThroughApplication(t: TenantDb, args: SnapshotArgs): Promise<Snapshot> {
  const { db } = t;
  const withPage = pageOneWithIds(args);
  /** The packed ids and the width they need, from the statement built for `width` (or none). */
  const packAt = async (packing: Packing, width?: number) => {
    const key = `${args.searchKey}\0${width ?? 'w'}\0${packing}${withPage ? `\0${args.end}` : ''}`;
    const { rows } = await snapshotQueries(db, key, () => packStatement(t, args, packing, width, withPage ? args.end : undefined));
    return { width: Number(rows[0]!.width), packed: rows[0]!.packed ?? '', page: rows[0]!.page ?? undefined };
  };
  const pack = async (how: Packing) => {
    let width = await widthGuess(db, args.table);
    for (let attempt = 0; attempt < 3; attempt++) {
      const packing = await packAt(how, width);
      if (packing.width === width) return packing;
      // The table's ids outgrew the guess: again at the width they need.
      widthsOf(db).set(args.table, (width = packing.width));
    }
    // Still outgrowing it (ids racing past width boundaries): the offset the statement reads
    // itself, right by construction.
    return packAt(how);
  };
  const how = packingOf(t, args);
  let packing = await pack(how);
  // A scan's or a plan's order is not one SQL promises: when it is not ascending, the ordered
  // sub-select packs them again (and packs this search so from now on, when it was the plan's).
  if (how !== 'ordered' && !inIdOrder(how, packing.packed, packing.width)) {
    if (how === 'plan') outOfOrderPlans.set(args.searchKey, true);
    packing = await pack('ordered');
  }
  const { width, packed, page } = packing;
  const total = packed.length / width;
  const chunkChars = width * idsPerChunk(width);
  const b = args.binding;
  const query = JSON.stringify(args.query);
  const count = Math.max(1, Math.ceil(packed.length / chunkChars));
  const slice = (chunk: number) => packed.slice(chunk * chunkChars, (chunk + 1) * chunkChars);
  // Values row after row, in CHUNK_COLUMNS order.
  const values = (from: number, to: number) => {
    const out: unknown[] = [];
    for (let chunk = from; chunk < to; chunk++)
      out.push(args.id, chunk, total, width, b.collection, b.scope, b.owner, chunk === 0 ? query : '', args.query.limit, args.expiresAt, slice(chunk));
    return out;
  };
  if (count <= ROWS_PER_INSERT) await insertChunks(String(count), db, ...values(0, count));
  else
    await db.transaction().execute(async (trx) => {
      for (let from = 0; from < count; from += ROWS_PER_INSERT) {
        const to = Math.min(count, from + ROWS_PER_INSERT);
        await insertChunks(String(to - from), trx, ...values(from, to));
      }
    });
  const span = { start: args.start, end: Math.min(args.end, total) };
  if (page !== undefined) return { total, records: { json: page } };
  const { first, last } = chunksOf(span, width);
  const chunks = new Map<number, string>();
  for (let c = first; c <= last; c++) chunks.set(c, slice(c));
  return { total, records: { ids: idsAt(chunks, width, span.start, span.end) } };
}

/** Column names of the snapshot statement's own values: no field name has a `$` (define.ts). */
const TOTAL = '$total';

/**
 * One statement packs the ids, cuts them into chunk rows and inserts them, and reads the rows of
 * the requested page: the ids never travel to the application, and a new search costs one
 * round trip. Answers one row: the total and the page's records as JSON (no row objects for pg
 * to parse, no dates to convert, nothing to stringify).
 */
async function snapshotInDatabase(t: TenantDb, chunkIds: DatabaseChunkIds, args: SnapshotArgs): Promise<Snapshot> {
  const { db } = t;
  const b = args.binding;
  const withPage = pageOneWithIds(args);
  // The packed ids are one value of a one-row sub-select in FROM (fenced with OFFSET 0, so the
  // aggregate stays one InitPlan, run once), joined to the chunk numbers: every chunk row slices
  // that value in place. A materialized CTE held it in a tuplestore instead, which spilled the
  // 7 MB of a million ids to a temporary file past work_mem, and each (select ... from m) read
  // a copy of it. A million ids, psql, five runs in turns: 172-177 -> 149-154 ms (ids as text).
  const perChunk = sql.raw(idsPerChunkSql('w.width'));
  // RETURNING sees only the inserted row: its own width.
  const perChunkOfRow = sql.raw(idsPerChunkSql('width'));
  // Built only when the statement is compiled, as everything in it: building a query costs
  // hundreds of microseconds (built on every search, one client measured 741 against 386 us of
  // user CPU a search).
  const packIds = () => {
    const { where, value } = idsOf(t, args);
    return chunkIds.pack(db.selectFrom(args.table).where(where), value, orderBySql(args.order));
  };
  const build = (id: unknown, collection: unknown, scope: unknown, owner: unknown, query: unknown, limit: unknown, expiresAt: unknown, start: unknown, end: unknown) =>
    sql<Record<string, unknown>>`with
    ${widthCte(t, args.table)},
    ins as (insert into ${qualified(t, TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids)
      select ${id}, n.chunk, packed.total, w.width, ${collection}, ${scope}, ${owner},
        case when n.chunk = 0 then ${query} else '' end, cast(${limit} as integer), cast(${expiresAt} as bigint),
        ${chunkIds.slice(sql`packed.ids`, sql`n.chunk * ${perChunk}`, perChunk)}
      from w, (select q.ids, ${chunkIds.count(sql`q.ids`)} as total from (select ${packIds()} as ids offset 0) as q) as packed,
        lateral generate_series(0, greatest(packed.total - 1, 0) / ${perChunk}) as n (chunk)
      returning chunk, total${withPage ? sql`` : sql`, case when chunk between cast(${start} as integer) / ${perChunkOfRow} and cast(${end} as integer) / ${perChunkOfRow} then ids end as ids`})
    ${withPage ? sql`select head.total as ${sql.id(TOTAL)}, ${firstPageJson(t, args, args.end)} as json from (select total from ins where chunk = 0) as head` : sql`,
    page (ord, id) as (select p.i, ${chunkIds.at(sql`ins.ids`, sql`p.i % ${perChunk}`)} - w.base
      from w, generate_series(0, ${sql.lit(MAX_LIMIT - 1)}) as k, lateral (select cast(${start} as integer) + k as i) as p, ins
      where ins.chunk = p.i / ${perChunk} and p.i < cast(${end} as integer) and p.i < ins.total)
    select head.total as ${sql.id(TOTAL)}, p.json from (select total from ins where chunk = 0) as head
    cross join lateral (select '[' || coalesce(string_agg(${args.recordJson('r')}, ',' order by page.ord), '') || ']' as json
      from page join ${qualified(t, args.table)} as r on r.id = page.id) as p`}`.compile(db);
  const key = withPage ? `${args.searchKey}\0first\0${args.end}` : args.searchKey;
  const result = await snapshotQueries(db, key, build, args.id, b.collection, b.scope, b.owner, JSON.stringify(args.query),
    args.query.limit, args.expiresAt, args.start, args.end);
  // The head row is always there (chunk 0 is inserted even for no ids), so is this row.
  const row = result.rows[0] as { [TOTAL]: unknown; json: string };
  return { total: Number(row[TOTAL]), records: { json: row.json } };
}

const META = ['chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'expires_at'] as const;

/** A head row as the cursor's metadata. */
const toMeta = (r: Record<string, any>): CursorMeta => ({
  collection: r.collection,
  scope: r.scope,
  owner: r.owner,
  total: Number(r.total),
  width: Number(r.width),
  query: JSON.parse(r.query) as CanonicalQuery,
  expiresAt: Number(r.expires_at),
  limit: Number(r.page_size),
});

/**
 * One read for any page: the cursor's head row (metadata) and the chunk rows holding the page,
 * whose range is computed in SQL from the cursor's own page size. Undefined: no such cursor.
 */
const pageRows = prepared<[string, number], Record<string, any>>((db, id, page) => {
  const { opaqueValues, chunkIds } = dialectOf(db);
  // The chunk as layout.ts's packed text, whatever the column holds.
  const ids = chunkIds.cutIn === 'database' ? chunkIds.text(sql.ref('ids')).as('ids') : sql.ref<string>('ids').as('ids');
  // Two primary-key lookups in one statement: the head row, and the range of chunk rows the page
  // needs, bounded by the cursor's own page size (an OR of both would scan every chunk row).
  const head = db.selectFrom(TABLE).where('id', '=', id).where('chunk', '=', 0);
  const pageSize = head.select('page_size');
  const perChunk = head.select(sql.raw(idsPerChunkSql('width')).as('n'));
  const p = sql`cast(${page} as integer)`;
  const first = sql<number>`((${p} - 1) * (${pageSize})) / (${perChunk})`;
  const last = sql<number>`(${p} * (${pageSize}) - 1) / (${perChunk})`;
  return db
    .selectFrom(TABLE)
    .select([...META, 'page_size', sql<string | null>`null`.as('ids')])
    .where((eb) => opaqueValues(eb.and([eb('id', '=', id), eb('chunk', '=', 0)])))
    .unionAll(
      db
        .selectFrom(TABLE)
        .select([...META, 'page_size', ids])
        .where((eb) => opaqueValues(eb.and([eb('id', '=', id), eb('chunk', '>=', first), eb('chunk', '<=', last)]))),
    )
    .compile();
});

export async function readPage(db: Kysely<any>, id: string, page: number): Promise<CursorRead | undefined> {
  const { rows } = await pageRows(db, id, page);
  const head = rows.find((r) => Number(r.chunk) === 0);
  if (!head) return undefined;
  const chunks = new Map<number, string>();
  for (const r of rows) if (r.ids !== null) chunks.set(Number(r.chunk), r.ids);
  return { meta: toMeta(head), chunks };
}

const touch = prepared<[number, string]>((db, expiresAt, id) =>
  db.updateTable(TABLE).set({ expires_at: expiresAt }).where('id', '=', id).where('chunk', '=', 0).compile(),
);

/** Moves the expiry on the head row, the one every read checks. */
export async function touchSnapshot(db: Kysely<any>, id: string, expiresAt: number): Promise<void> {
  await touch(db, expiresAt, id);
}

export async function deleteSnapshot(db: Kysely<any>, id: string): Promise<void> {
  await db.deleteFrom(TABLE).where('id', '=', id).execute();
}

/**
 * Expired cursors removed per statement. A sweep of every expired cursor at once could delete
 * hundreds of thousands of rows in one statement under constant traffic (about 300 ms for 70,000
 * on SQLite, where nothing else runs meanwhile); a batch is a few milliseconds.
 */
export const SWEEP_BATCH = 256;

/** Removes up to `limit` expired cursors, every row of each; returns the rows removed. */
export async function sweepExpired(db: Kysely<any>, now: number, limit = SWEEP_BATCH): Promise<number> {
  const expired = db.selectFrom(TABLE).select('id').where('chunk', '=', 0).where('expires_at', '<', now).limit(limit);
  const result = await db.deleteFrom(TABLE).where('id', 'in', expired).executeTakeFirst();
  return Number(result.numDeletedRows);
}
