import { cursorsFor, type CursorPage, type Cursors } from '../cursor/index.ts';
import type { CursorBinding } from '../cursor/snapshot-store.ts';
import { canonicalize } from '../query/canonical.ts';
import type { ResolvedQuery } from '../query/resolve.ts';
import type { Resource } from '../registry.ts';
import { recordJsonOf, recordsJson } from '../sql/records-json.ts';
import { compileWhere } from '../sql/where.ts';
import { loadRecord, notFound, type OperationContext, type ParentScope } from './context.ts';

export interface ListPage {
  /** The page's records as the API shows them: the text of a JSON array. */
  readonly json: string;
  readonly cursor: string;
  readonly total: number;
  readonly page: number;
  readonly limit: number;
  /** The change-feed seq the search's snapshot reflects (undefined: a cursor older than that). */
  readonly changeSeq: number | undefined;
}

/** The tenant's cursors under this engine's settings: kept in the tenant's state, one per engine. */
const cursorsOf = (ctx: OperationContext): Cursors => ctx.tenant.state.get(ctx.cursors, () => cursorsFor(ctx.tenant, ctx.cursors));

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
  const { db } = ctx.tenant;
  // A later page may go on after the parent was deleted: the snapshot is already taken.
  if (parent && !(await loadRecord(db, ctx, parent.resource, parent.id, query.deleted || query.cursor !== undefined)))
    throw notFound(parent.resource.name, parent.id);
  const binding = {
    collection: resource.name,
    scope: parent ? `${parent.resource.name}/${parent.id}` : '',
    owner: ctx.user ?? '',
  };
  const page = query.cursor ? await cursorsOf(ctx).page(query, binding) : await snapshot(ctx, resource, query, binding, parent);
  // The current values of the page's records, in snapshot order.
  const { records } = page;
  const json = 'json' in records ? records.json : await recordsJson(db, resource, records.ids);
  return { json, cursor: page.cursor, total: page.total, page: query.page, limit: page.limit, changeSeq: page.changeSeq };
}

/** A new search's cursor and its requested page. */
function snapshot(ctx: OperationContext, resource: Resource, query: ResolvedQuery, binding: CursorBinding, parent?: ParentScope): Promise<CursorPage> {
  const { dialect } = ctx.tenant;
  const canonical = canonicalize(query);
  return cursorsOf(ctx).create({
    table: resource.name,
    query,
    canonical,
    binding,
    where: compileWhere(query.filters, dialect, { includeDeleted: query.deleted, scope: parent && { field: parent.field, id: parent.id } }),
    recordJson: (alias) => recordJsonOf(dialect, resource, alias),
  });
}
