import { sql, type Expression, type Kysely } from 'kysely';

/**
 * A collection's lazy-cursor mark: the time (the engine's clock, epoch ms) until which a lazy
 * cursor of the collection may still be unmade, kept in `mrs_meta`. Only an unmade lazy cursor
 * needs the row each write after its seq replaced (lazy.ts), and keeping that row costs every
 * update and delete its JSON and a larger event row (BENCHMARKS.md, "Before-rows only while a lazy cursor may need them"). Where the
 * database lets every write see a mark set before a cursor's seq is read
 * (Supports.beforeRowsOnlyWhileMarked), writes keep that row only while the mark is not past:
 *
 * - a new lazy cursor reads the mark with its page; when the mark ends before the cursor
 *   expires, it raises the mark (to its expiry and a lifetime more, so the mark is written about
 *   once a lifetime, not once a search) and reads its seq, page and total again, after;
 * - a write's read of its row (operations/context.ts, loadForWrite) keeps the row's JSON when
 *   the mark is at or after the write's time.
 *
 * So every write after the seq saw the mark: a cursor is never made without a row it needs. A
 * write that missed one would only make the cursor gone (410, `events-without-rows`), never a
 * wrong page. An unmade cursor's expiry moves only when a request makes it (cursor/index.ts),
 * and one that expired is gone: once the mark is past, none is left that needs a row.
 */
export const lazyMarkKey = (table: string): string => `lazy_cursors_until:${table}`;

/** The collection's mark as an integer, null when it has none; `mrs_meta` named as the database's plugins qualify it. */
export const lazyMarkOf = (db: Kysely<any>, table: string): Expression<number | null> =>
  db
    .selectFrom('mrs_meta')
    .select(sql<number>`cast(value as integer)`.as('until'))
    .where('key', '=', sql.lit(lazyMarkKey(table)))
    .$asScalar();

/**
 * Raises the collection's mark to `until` (never lowers it: another process may have raised it
 * further). Plain Kysely: it runs about once a cursor lifetime, not once a request.
 */
export async function raiseLazyMark(table: string, db: Kysely<any>, until: number): Promise<void> {
  await db
    .insertInto('mrs_meta')
    .values({ key: sql.lit(lazyMarkKey(table)), value: sql`cast(${until} as text)` })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ value: sql`excluded.value` })
        .where(sql`cast(mrs_meta.value as integer)`, '<', sql`cast(excluded.value as integer)`),
    )
    .execute();
}
