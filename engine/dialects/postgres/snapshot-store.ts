import { sql } from 'kysely';
import { compiledByKey } from '../../compiled-queries.ts';
import { CURSOR_TABLE, deleteCursor, pageReader, sweepCursors, touchCursor } from '../../cursor/cursor-rows.ts';
import { idsPerChunkSql } from '../../cursor/layout.ts';
import { firstPageJson, idValue, pageOneWithIds, widthCte } from '../../cursor/snapshot-sql.ts';
import type { Snapshot, SnapshotArgs, SnapshotStore } from '../../cursor/snapshot-store.ts';
import { MAX_LIMIT } from '../../query/reserved.ts';
import { orderBySql } from '../order-by.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';
import { chunkIds } from './chunk-ids.ts';
import { highestSeqSql } from './event-log.ts';

/**
 * PostgreSQL's snapshots: one INSERT ... SELECT packs a snapshot's ids and cuts them into chunk
 * rows (chunk-ids.ts), so the ids never leave the database; page reads turn a chunk into
 * layout.ts's packed text.
 */
export const postgresSnapshots: SnapshotStore = {
  create: (t, args) => snapshot(t, args),
  readPage: pageReader(() => ({ ids: chunkIds.text(sql.ref('ids')).as('ids'), condition: (c) => c })),
  touch: touchCursor,
  delete: deleteCursor,
  sweep: sweepCursors,
};

/** A search's snapshot statement, compiled once while it stays among the recent ones. */
const snapshotQueries = compiledByKey(500);

/** Column names of the snapshot statement's own values: no field name has a `$` (define.ts). */
const TOTAL = '$total';
const CHANGE_SEQ = '$change_seq';

/**
 * One statement packs the ids, cuts them into chunk rows and inserts them, and reads the rows of
 * the requested page: the ids never travel to the application, and a new search costs one
 * round trip. Answers one row: the total and the page's records as JSON (no row objects for pg
 * to parse, no dates to convert, nothing to stringify).
 */
async function snapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot> {
  const { db } = t;
  const b = args.binding;
  const withPage = pageOneWithIds(args);
  // The packed ids are one value of a one-row sub-select in FROM (fenced with OFFSET 0, so the
  // aggregate stays one InitPlan, run once), joined to the chunk numbers: every chunk row slices
  // that value in place. A materialized CTE held it in a tuplestore instead, which spilled a
  // million ids to a temporary file past work_mem, and each (select ... from m) read a copy of
  // it (BENCHMARKS.md).
  const perChunk = sql.raw(idsPerChunkSql('w.width'));
  // The feed's seq the snapshot reflects, read in this statement's snapshot of the database: the
  // head row keeps it for later pages (SPEC 9: lists join the feed).
  const changeSeq = highestSeqSql(t);
  // RETURNING sees only the inserted row: its own width.
  const perChunkOfRow = sql.raw(idsPerChunkSql('width'));
  // Built only when the statement is compiled, as everything in it: building a query costs more
  // than the rest of a search's work in the application.
  const packIds = () => chunkIds.pack(db.selectFrom(args.table).where(args.where), idValue(), orderBySql(args.order));
  const build = (id: unknown, collection: unknown, scope: unknown, owner: unknown, query: unknown, limit: unknown, expiresAt: unknown, start: unknown, end: unknown) =>
    sql<Record<string, unknown>>`with
    ${widthCte(t, args.table)},
    ins as (insert into ${tableRef(t, CURSOR_TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq)
      select ${id}, n.chunk, packed.total, w.width, ${collection}, ${scope}, ${owner},
        case when n.chunk = 0 then ${query} else '' end, cast(${limit} as integer), cast(${expiresAt} as bigint),
        ${chunkIds.slice(sql`packed.ids`, sql`n.chunk * ${perChunk}`, perChunk)},
        case when n.chunk = 0 then ${changeSeq} end
      from w, (select q.ids, ${chunkIds.count(sql`q.ids`)} as total from (select ${packIds()} as ids offset 0) as q) as packed,
        lateral generate_series(0, greatest(packed.total - 1, 0) / ${perChunk}) as n (chunk)
      returning chunk, total, change_seq${withPage ? sql`` : sql`, case when chunk between cast(${start} as integer) / ${perChunkOfRow} and cast(${end} as integer) / ${perChunkOfRow} then ids end as ids`})
    ${withPage ? sql`select head.total as ${sql.id(TOTAL)}, head.change_seq as ${sql.id(CHANGE_SEQ)}, ${firstPageJson(t, args, args.end, args.where)} as json from (select total, change_seq from ins where chunk = 0) as head` : sql`,
    page (ord, id) as (select p.i, ${chunkIds.at(sql`ins.ids`, sql`p.i % ${perChunk}`)} - w.base
      from w, generate_series(0, ${sql.lit(MAX_LIMIT - 1)}) as k, lateral (select cast(${start} as integer) + k as i) as p, ins
      where ins.chunk = p.i / ${perChunk} and p.i < cast(${end} as integer) and p.i < ins.total)
    select head.total as ${sql.id(TOTAL)}, head.change_seq as ${sql.id(CHANGE_SEQ)}, p.json from (select total, change_seq from ins where chunk = 0) as head
    cross join lateral (select '[' || coalesce(string_agg(${args.recordJson('r')}, ',' order by page.ord), '') || ']' as json
      from page join ${tableRef(t, args.table)} as r on r.id = page.id) as p`}`.compile(db);
  const key = withPage ? `${args.searchKey}\0first\0${args.end}` : args.searchKey;
  const result = await snapshotQueries(db, key, build, args.id, b.collection, b.scope, b.owner, JSON.stringify(args.query),
    args.query.limit, args.expiresAt, args.start, args.end);
  // The head row is always there (chunk 0 is inserted even for no ids), so is this row.
  const row = result.rows[0] as { [TOTAL]: unknown; [CHANGE_SEQ]: unknown; json: string };
  return { total: Number(row[TOTAL]), records: { json: row.json }, changeSeq: Number(row[CHANGE_SEQ]) };
}
