import { compiledStatement } from '../../compiled-queries.ts';
import { CURSOR_TABLE, storedQuery } from '../../cursor/cursor-rows.ts';
import { widthFor } from '../../cursor/layout.ts';
import { searchStatsOf } from '../../cursor/search-stats.ts';
import { largestIdQuery, type SqlSetup } from '../../cursor/snapshot-sql.ts';
import type { Search, SnapshotArgs } from '../../cursor/snapshot-store.ts';
import type { TenantDb } from '../types.ts';
import { highestSeqSql } from './event-log.ts';
import { opaqueValues } from './opaque-values.ts';

/** What SQLite's snapshot strategies share: their condition, the feed's seq, the width's guess, writing chunk rows. */

/** The search's condition as the snapshot statement writes it. */
export const whereOf = (t: SqlSetup, search: Search) => {
  const where = search.sql.where(search, t.flavour);
  return (eb: any) => opaqueValues(where(eb));
};

/** The feed's seq the snapshot reflects, read in the packing statement itself (SPEC 9: lists join the feed). */
export const changeSeq = highestSeqSql();

/** The width a table's ids were last packed at (SearchStats), the next statement's first guess; read once a table, so plain Kysely. */
export async function widthGuess(t: TenantDb, table: string): Promise<number> {
  const stats = searchStatsOf(t);
  let width = stats.width(table);
  if (width === undefined)
    stats.setWidth(table, (width = widthFor(Number((await largestIdQuery(t.db, table).executeTakeFirst())?.m ?? 0))));
  return width;
}

/** Chunk rows per INSERT: 12 parameters a row stays far below SQLite's limit. */
const ROWS_PER_INSERT = 500;

export const CHUNK_COLUMNS = [
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

/** An INSERT of n chunk rows, compiled once per n: `values` row after row, in CHUNK_COLUMNS order. */
const insertChunks = compiledStatement<{ n: number }, { values: readonly unknown[] }>('snapshot chunks', (db, { n }, p) => {
  const rows = [];
  for (let r = 0; r < n; r++) rows.push(Object.fromEntries(CHUNK_COLUMNS.map((c, i) => [c, p.values.at(r * CHUNK_COLUMNS.length + i)])));
  return db.insertInto(CURSOR_TABLE).values(rows);
});

/** Searches whose snapshot statements each kind keeps compiled, the most recently used. */
export const SEARCHES_KEPT = 500;

/** Writes a snapshot's chunk rows: one INSERT, or a transaction of several for very large snapshots. */
export async function insertSnapshot(
  t: TenantDb,
  args: SnapshotArgs,
  width: number,
  total: number,
  changeSeq: number,
  chunks: readonly string[],
) {
  const b = args.binding;
  const query = storedQuery(args.query);
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
  if (count <= ROWS_PER_INSERT) await insertChunks.run(t.db, { n: count }, { values: values(0, count) });
  else
    await t.db.transaction().execute(async (trx) => {
      for (let from = 0; from < count; from += ROWS_PER_INSERT) {
        const to = Math.min(count, from + ROWS_PER_INSERT);
        await insertChunks.run(trx, { n: to - from }, { values: values(from, to) });
      }
    });
}
