import { sql, type RawBuilder } from 'kysely';
import { ATTACHED_FILES } from '../files/definition.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import type { EventParent } from './event-log.ts';

/**
 * Whose events name their parent: a file's (SPEC 13), shown in the feed to those who may read
 * its parent's collection. One table holds every parent's files, each linked by one field.
 */
const named = (resource: Resource) => resource.name === ATTACHED_FILES;

/** The parent a record's event names: the one link a file holds; undefined for other collections. */
export function eventParentOf(resource: Resource, record: ApiRecord): EventParent | undefined {
  if (!named(resource)) return undefined;
  for (const [collection, field] of resource.parents) {
    const id = record[field];
    if (id !== null && id !== undefined) return { collection, id: Number(id) };
  }
  return undefined;
}

/**
 * eventParentOf as the event row's two columns (parent_collection, parent_id) over a row written
 * in the same statement (`alias`): nulls for a collection whose events name none.
 */
export function eventParentSql(resource: Resource, alias: string): RawBuilder<unknown> {
  const links = named(resource) ? [...resource.parents] : [];
  if (links.length === 0) return sql`cast(null as text), cast(null as bigint)`;
  const when = (then: (collection: string, field: string) => RawBuilder<unknown>) =>
    sql.join(
      links.map(([collection, field]) => sql`when ${sql.ref(`${alias}.${field}`)} is not null then ${then(collection, field)}`),
      sql` `,
    );
  return sql`case ${when((c) => sql`cast(${sql.lit(c)} as text)`)} end, case ${when((_c, f) => sql`cast(${sql.ref(`${alias}.${f}`)} as bigint)`)} end`;
}

/** A file's event's `parent` as eventJson writes it (a collection's name needs no escaping: define.ts), else nothing. */
export const parentText = sql<string>`coalesce(',"parent":{"collection":"' || parent_collection || '","id":' || parent_id || '}', '')`;

/**
 * On an event row: its parent is among `parents` (none: no parent passes). An event of files
 * without a parent (written before events named one) passes only when every parent does: the
 * condition is then left out.
 */
export const parentsCondition = (parents: RawBuilder<unknown> | undefined): RawBuilder<unknown> => {
  const none = sql`(parent_collection is null and collection <> ${sql.lit(ATTACHED_FILES)})`;
  return parents === undefined ? none : sql`(parent_collection in (${parents}) or ${none})`;
};
