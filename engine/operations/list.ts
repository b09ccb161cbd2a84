import { cursorsFor, searchKeyOf, type CursorPage, type Cursors } from '../cursor/index.ts';
import type { CursorBinding, Search } from '../cursor/snapshot-store.ts';
import { canonicalize, type CanonicalQuery } from '../query/canonical.ts';
import type { LazySearch } from '../cursor/lazy.ts';
import { OPERATOR_RULES, type Operator } from '../query/operators.ts';
import type { Filter, ResolvedQuery } from '../query/resolve.ts';
import type { Registry, Resource } from '../registry.ts';
import { recordsJson } from '../sql/records-json.ts';
import { searchOf } from '../sql/search-sql.ts';
import { compileWhere } from '../sql/where.ts';
import { shapeOf } from '../sql/record-shape.ts';
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
  /** The `$linked` names the records are shown with (a later page: its cursor's). */
  readonly linked: readonly string[] | undefined;
}

/** The tenant's cursors under this engine's settings: kept in the tenant's state, one per engine. */
const cursorsOf = (ctx: OperationContext): Cursors => ctx.tenant.state.get(ctx.cursors, () => cursorsFor(ctx.tenant, ctx.cursors));

/**
 * A page of a search. Without `$cursor` the search is snapshotted into a new cursor; with it,
 * the page comes from the snapshot: the records' current values, in snapshot order.
 */
export async function list(ctx: OperationContext, resource: Resource, query: ResolvedQuery, parent?: ParentScope): Promise<ListPage> {
  const { db } = ctx.tenant;
  // A later page may go on after the parent was deleted: the snapshot is already taken.
  if (parent && !(await loadRecord(db, ctx, parent.resource, parent.id, query.deleted || query.cursor !== undefined)))
    throw notFound(parent.resource.name, parent.id);
  const binding = {
    collection: resource.name,
    scope: parent ? `${parent.resource.name}/${parent.id}` : '',
    owner: ctx.user ?? '',
  };
  const page = query.cursor
    ? await cursorsOf(ctx).page(query, binding, (stored) => lazySearch(ctx, resource, stored, parent))
    : await snapshot(ctx, resource, query, binding, parent);
  // The current values of the page's records, in snapshot order, as the search asked them shown.
  const { records } = page;
  const json = 'json' in records ? records.json : await recordsJson(db, resource, records.ids, shapeOf(ctx.registry, resource, page.query));
  return {
    json,
    cursor: page.cursor,
    total: page.total,
    page: query.page,
    limit: page.limit,
    changeSeq: page.changeSeq,
    linked: page.query.linked,
  };
}

/** A new search's cursor and its requested page. */
function snapshot(
  ctx: OperationContext,
  resource: Resource,
  query: ResolvedQuery,
  binding: CursorBinding,
  parent?: ParentScope,
): Promise<CursorPage> {
  const { search, canonical, searchKey } = parent ? searchParts(ctx, resource, query, parent) : topLevelSearchParts(ctx, resource, query);
  return cursorsOf(ctx).create({ search, query, canonical, searchKey, binding });
}

interface SearchParts {
  readonly search: Search;
  readonly canonical: CanonicalQuery;
  readonly searchKey: string;
}

function searchParts(ctx: OperationContext, resource: Resource, query: ResolvedQuery, parent?: ParentScope): SearchParts {
  const search = searchOf(resource, query, shapeOf(ctx.registry, resource, query), parent);
  const canonical = canonicalize(query);
  return { search, canonical, searchKey: searchKeyOf(search, canonical) };
}

const topLevelParts = new WeakMap<ResolvedQuery, SearchParts & { readonly registry: Registry }>();

/**
 * A top-level search's parts, made once per query object: a query sent again is the same frozen
 * object (query/resolved.ts). Frozen too, so the compiled statements find the search by identity.
 */
function topLevelSearchParts(ctx: OperationContext, resource: Resource, query: ResolvedQuery) {
  if (!Object.isFrozen(query)) return searchParts(ctx, resource, query);
  const known = topLevelParts.get(query);
  if (known?.registry === ctx.registry) return known;
  const { search, canonical, searchKey } = searchParts(ctx, resource, query);
  const parts = { registry: ctx.registry, search: Object.freeze(search), canonical: Object.freeze(canonical), searchKey };
  topLevelParts.set(query, parts);
  return parts;
}

/**
 * A lazy cursor's search rebuilt from its stored query (engine/cursor/lazy.ts): the same
 * condition and order it was created with. Undefined when the definition no longer has a field
 * it reads.
 */
function lazySearch(ctx: OperationContext, resource: Resource, stored: CanonicalQuery, parent?: ParentScope): LazySearch | undefined {
  const { flavour } = ctx.tenant;
  const filters: Filter[] = [];
  for (const [key, values] of Object.entries(stored.filters)) {
    const [field, op] = key.split(':') as [string, Operator];
    const f = resource.fields[field];
    if (!f || !(op in OPERATOR_RULES)) return undefined;
    filters.push({ field, kind: f.kind, op, values: values.map((v) => JSON.parse(v)), params: [] });
  }
  const [field, direction] = stored.order.split(':') as [string, 'asc' | 'desc'];
  if (!resource.fields[field]) return undefined;
  const where = compileWhere(filters, flavour, { includeDeleted: stored.deleted, scope: parent && { field: parent.field, id: parent.id } });
  return {
    table: resource.name,
    where,
    order: { field, direction },
    columns: resource.fieldNames.map((name) => ({ name, kind: name === 'id' ? ('id' as const) : resource.fields[name]!.kind })),
  };
}
