import { sql, type Expression, type SelectQueryBuilder } from 'kysely';

/**
 * `value` over the rows of `source`, as a sub-select ordered by `orderBy` (column `v`) that an
 * aggregate reads in its order: PostgreSQL 15 would sort again for an aggregate ORDER BY even
 * when an index scan already gives the order.
 */
export const inOrder = (source: SelectQueryBuilder<any, any, any>, value: Expression<unknown>, orderBy: Expression<unknown>) =>
  sql`(${source.select(sql`${value}`.as('v')).orderBy(orderBy as any)}) as s`;
