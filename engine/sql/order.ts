import type { SelectQueryBuilder } from 'kysely';
import type { Reserved } from '../query/reserved.ts';

/** Empty values sort as the largest on every database; ties are broken by id ascending. */
export function applyOrder<Q extends SelectQueryBuilder<any, any, any>>(q: Q, order: Reserved['order']): Q {
  if (order.field === 'id') return q.orderBy('id', order.direction) as Q;
  const nulls = order.direction === 'asc' ? 'last' : 'first';
  return q
    .orderBy(order.field, (ob) => (nulls === 'last' ? ob[order.direction]().nullsLast() : ob[order.direction]().nullsFirst()))
    .orderBy('id', 'asc') as Q;
}
