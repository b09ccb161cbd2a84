import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import type { SqlFlavour } from './types.ts';

/** The text of a JSON array of `record` over `rows`, in `orderBy`'s order (`[]` for no rows). */
export function jsonArrayOf(
  flavour: SqlFlavour,
  rows: SelectQueryBuilder<any, any, any>,
  record: Expression<string>,
  orderBy: Expression<unknown>,
) {
  // Each record behind a comma, concatenated in order; the first comma is cut.
  return sql<string>`'[' || substr(${flavour.concatInOrder(rows, sql`',' || ${record}`, orderBy)}, 2) || ']'`;
}
