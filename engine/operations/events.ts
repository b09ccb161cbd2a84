import type { Kysely } from 'kysely';
import type { EventOp, NewEvent } from '../events/event-log.ts';
import { eventParentOf } from '../events/event-parent.ts';
import { sharedChanged } from '../events/event-sql.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import type { OperationContext } from './context.ts';

/**
 * Appends the event of a write to the tenant's change feed, in the write's transaction `trx`
 * and as its last statement (PostgreSQL takes the feed's order there: dialects/postgres/event-log.ts).
 * `record` is the record as after the change: what the write's statement returned, `json` its JSON text; `before`, for
 * an update or delete, the row it replaced (NewEvent.before).
 * Stamped by the engine's clock, which retention measures by.
 */
export function appendEvent(
  trx: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  op: EventOp,
  record: ApiRecord,
  changed: readonly string[],
  json: string,
  before?: string,
): Promise<void> {
  const { tenant } = ctx;
  return tenant.events.append(tenant, trx, [eventOf(ctx, resource, op, record, changed, json, before)]);
}

/** The event of a write: `record` as after the change, `json` its JSON text (the write's answer sends it too). */
export function eventOf(
  ctx: OperationContext,
  resource: Resource,
  op: EventOp,
  record: ApiRecord,
  changed: readonly string[],
  json: string,
  before?: string,
): NewEvent {
  return {
    collection: resource.name,
    id: record.id as number,
    op,
    changed,
    record: json,
    user: ctx.user ?? null,
    at: eventTime(ctx),
    before,
    parent: eventParentOf(resource, record),
  };
}

/** The collection's own fields (not the system ones) whose value differs between two versions of a record. */
export const changedFields = (resource: Resource, before: ApiRecord | undefined, after: ApiRecord): string[] =>
  Object.keys(resource.definition.fields).filter((name) => before === undefined || before[name] !== after[name]);

/** When an event happens: the engine's clock, which retention measures by. */
export const eventTime = (ctx: OperationContext): string => new Date(ctx.cursors.now()).toISOString();

/** A create's `changed`: every field of the collection (SPEC 9). Made once per collection. */
const created = new WeakMap<Resource, readonly string[]>();
export function createdFields(resource: Resource): readonly string[] {
  let fields = created.get(resource);
  if (!fields) created.set(resource, (fields = sharedChanged(Object.freeze(Object.keys(resource.definition.fields)))));
  return fields;
}
