import { sql, type RawBuilder } from 'kysely';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import type { EventParent } from './event-log.ts';

/** The parent a record's event names: the one link it holds, where its collection's events name one (Resource.eventsNameParent). */
export function eventParentOf(resource: Resource, record: ApiRecord): EventParent | undefined {
  if (!resource.eventsNameParent) return undefined;
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
  const links = resource.eventsNameParent ? [...resource.parents] : [];
  if (links.length === 0) return sql`cast(null as text), cast(null as bigint)`;
  const when = (then: (collection: string, field: string) => RawBuilder<unknown>) =>
    sql.join(
      links.map(([collection, field]) => sql`when ${sql.ref(`${alias}.${field}`)} is not null then ${then(collection, field)}`),
      sql` `,
    );
  return sql`case ${when((c) => sql`cast(${sql.lit(c)} as text)`)} end, case ${when((_c, f) => sql`cast(${sql.ref(`${alias}.${f}`)} as bigint)`)} end`;
}

/** An event's `parent` as eventJson writes it (a collection's name needs no escaping: define.ts), else nothing. */
export const parentText = sql<string>`coalesce(',"parent":{"collection":"' || parent_collection || '","id":' || parent_id || '}', '')`;

/**
 * On an event row: its parent is among `parents` (none: no parent passes). An event without a
 * parent of a collection whose events name one (`named`: written before they did) passes only
 * when every parent does: the condition is then left out.
 */
export const parentsCondition = (parents: RawBuilder<unknown> | undefined, named: readonly string[]): RawBuilder<unknown> => {
  const unnamed = named.length === 0 ? sql`` : sql` and collection not in (${sql.join(named.map((c) => sql.lit(c)))})`;
  const none = sql`(parent_collection is null${unnamed})`;
  return parents === undefined ? none : sql`(parent_collection in (${parents}) or ${none})`;
};
