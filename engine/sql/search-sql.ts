import type { Kysely } from 'kysely';
import type { Search, SearchSql } from '../cursor/snapshot-store.ts';
import { databaseOf, type SqlFlavour } from '../dialects/index.ts';
import type { ResolvedQuery } from '../query/resolve.ts';
import type { Resource } from '../registry.ts';
import { shapedJsonOf, type RecordShape } from './record-shape.ts';
import { recordJsonOf } from './records-json.ts';
import { compileWhere } from './where.ts';

/** The engine's search compiler, handed to the snapshot stores inside each search. */
export const searchSql: SearchSql = Object.freeze({
  where: (search: Search, flavour: SqlFlavour) =>
    compileWhere(search.filters, flavour, { includeDeleted: search.deleted, scope: search.scope }),
  recordJson: (db: Kysely<any>, search: Search, alias?: string) =>
    search.shape ? shapedJsonOf(db, search.resource, search.shape, alias) : recordJsonOf(databaseOf(db).flavour, search.resource, alias),
});

/** A resolved query of `resource` as a search (a child list's when `scope`), its records shaped as `shape` says. */
export function searchOf(
  resource: Resource,
  query: ResolvedQuery,
  shape: RecordShape | undefined,
  scope?: { readonly field: string; readonly id: number },
): Search {
  return {
    resource,
    filters: query.filters.map(({ field, kind, op, values }) => ({ field, kind, op, values })),
    deleted: query.deleted,
    scope: scope && { field: scope.field, id: scope.id },
    order: query.order,
    shape,
    sql: searchSql,
  };
}
