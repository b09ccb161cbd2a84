import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import { inOrder } from './in-order.ts';

/**
 * How PostgreSQL's cursor chunk rows hold their ids: as an array of bigint (each still offset by
 * its width's base, layout.ts). array_agg takes them as they are, where string_agg first writes
 * each as text (BENCHMARKS.md); a page read writes only its chunk's ids as text. Slices of an
 * array without NULLs are found by offset. Positions are 0-based.
 */
export const chunkIds = {
  /** The `ids` column's type. */
  columnType: sql`bigint[]`,
  /** `value` over the rows of `source` in the order `orderBy`, as one value (empty when none). */
  pack: (source: SelectQueryBuilder<any, any, any>, value: Expression<unknown>, orderBy: Expression<unknown>) =>
    sql`(select coalesce(array_agg(v), '{}') from ${inOrder(source, value, orderBy)})`,
  /** How many ids a packed value or a chunk holds. */
  count: (ids: Expression<unknown>) => sql<number>`cardinality(${ids})`,
  /** `count` ids from position `from`. */
  slice: (ids: Expression<unknown>, from: Expression<unknown>, count: Expression<unknown>) => sql`${ids}[${from} + 1 : ${from} + ${count}]`,
  /** The (offset) id at position `at`. */
  at: (ids: Expression<unknown>, at: Expression<unknown>) => sql<number>`${ids}[${at} + 1]`,
  /** A chunk as layout.ts's packed text. */
  text: (ids: Expression<unknown>) => sql<string>`array_to_string(${ids}, '')`,
};
