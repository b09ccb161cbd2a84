import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';
import { EVENTS_TABLE } from '../../events/event-log.ts';

/**
 * A file's event names its parent record (SPEC 13), which the feed filters on to show it to
 * those who may read the parent's collection; null for every other event. Each column is added
 * only where missing, so a table that has it already (made by hand, or a run cut short) passes.
 */
export const eventParents = (t: TenantDb): Migration => ({
  async up(db) {
    const has = await t.catalog.columns(Object.assign({}, t, { db }), EVENTS_TABLE);
    if (!has.has('parent_collection')) await db.schema.alterTable(EVENTS_TABLE).addColumn('parent_collection', 'text').execute();
    if (!has.has('parent_id')) await db.schema.alterTable(EVENTS_TABLE).addColumn('parent_id', 'bigint').execute();
  },
});
