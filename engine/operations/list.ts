import { cursorsFor, type CursorPage, type Cursors } from '../cursor/index.ts';
import type { TenantDb } from '../dialects/types.ts';
import type { ResolvedQuery } from '../query/resolve.ts';
import type { Resource } from '../registry.ts';
import { toRecord, type ApiRecord } from '../records.ts';
import { compileWhere } from '../sql/where.ts';
import { loadRecord, notFound, type OperationContext, type ParentScope } from './context.ts';

export interface ListPage {
  readonly records: ApiRecord[];
  readonly cursor: string;
  readonly total: number;
  readonly page: number;
  readonly limit: number;
}

const cursorCache = new WeakMap<TenantDb, Cursors>();

function cursorsOf(ctx: OperationContext): Cursors {
  let c = cursorCache.get(ctx.tenant);
  if (!c) cursorCache.set(ctx.tenant, (c = cursorsFor(ctx.tenant, ctx.cursors)));
  return c;
}

/**
 * A page of a search. Without `$cursor` the search is snapshotted into a new cursor; with it,
 * the page comes from the snapshot: the records' current values, in snapshot order.
 */
export async function list(
  ctx: OperationContext,
  resource: Resource,
  query: ResolvedQuery,
  parent?: ParentScope,
): Promise<ListPage> {
  const { db, dialect } = ctx.tenant;
  // A later page may go on after the parent was deleted: the snapshot is already taken.
  if (parent && !(await loadRecord(db, ctx, parent.resource, parent.id, query.deleted || query.cursor !== undefined)))
    throw notFound(parent.resource.name, parent.id);
  const binding = {
    collection: resource.name,
    scope: parent ? `${parent.resource.name}/${parent.id}` : '',
    owner: ctx.user ?? '',
  };
  const cursors = cursorsOf(ctx);
  const page: CursorPage = query.cursor
    ? await cursors.page(query, binding)
    : await cursors.create({
        table: resource.name,
        query,
        binding,
        where: (eb) =>
          compileWhere(eb, query.filters, dialect, {
            includeDeleted: query.deleted,
            scope: parent && { field: parent.field, id: parent.id },
          }),
      });
  return { records: await recordsInOrder(ctx, resource, page.ids), cursor: page.cursor, total: page.total, page: query.page, limit: page.limit };
}

/** The current values of the given records, in the given order. */
async function recordsInOrder(ctx: OperationContext, resource: Resource, ids: number[]): Promise<ApiRecord[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.tenant.db.selectFrom(resource.name).selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toRecord(resource, ctx.tenant.dialect, row)] : [];
  });
}
