import { sql, type RawBuilder } from 'kysely';
import type { Reserved } from '../query/reserved.ts';

/**
 * The ORDER BY of a search: empty values sort as the largest on every database (last
 * ascending, first descending); ties are broken by id ascending.
 */
export function orderBySql(order: Reserved['order']): RawBuilder<unknown> {
  const dir = sql.raw(order.direction);
  if (order.field === 'id') return sql`${sql.ref('id')} ${dir}`;
  const nulls = sql.raw(order.direction === 'asc' ? 'nulls last' : 'nulls first');
  return sql`${sql.ref(order.field)} ${dir} ${nulls}, ${sql.ref('id')} asc`;
}
