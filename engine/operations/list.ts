import type { ResolvedQuery } from '../query/resolve.ts';
import type { Resource } from '../registry.ts';
import { toRecord, type ApiRecord } from '../records.ts';
import { applyOrder } from '../sql/order.ts';
import { compileWhere } from '../sql/where.ts';
import { loadRecord, notFound, type OperationContext, type ParentScope } from './context.ts';

export interface ListPage {
  readonly records: ApiRecord[];
  readonly total: number;
  readonly page: number;
  readonly limit: number;
}

/** One page of the records matching a resolved query, within a parent when listing children. */
export async function list(
  ctx: OperationContext,
  resource: Resource,
  query: ResolvedQuery,
  parent?: ParentScope,
): Promise<ListPage> {
  const { db, dialect } = ctx.tenant;
  if (parent && !(await loadRecord(db, ctx, parent.resource, parent.id, query.deleted)))
    throw notFound(parent.resource.name, parent.id);
  const where = { includeDeleted: query.deleted, scope: parent && { field: parent.field, id: parent.id } };
  const base = db.selectFrom(resource.name).where((eb) => compileWhere(eb, query.filters, dialect, where));
  const [rows, count] = await Promise.all([
    applyOrder(base.selectAll(), query.order)
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    records: rows.map((r) => toRecord(resource, dialect, r)),
    total: Number(count.n),
    page: query.page,
    limit: query.limit,
  };
}
