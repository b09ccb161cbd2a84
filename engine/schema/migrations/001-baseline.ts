import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';

/**
 * The engine's tables as they are today, made directly (mrs_meta, mrs_cursors, mrs_events,
 * mrs_idempotency; each database's own way: Catalog.createEngineTables). A database an earlier
 * release migrated already has them: engine-tables.ts marks this applied there instead.
 */
export const baseline = (t: TenantDb): Migration => ({
  async up(db) {
    await t.catalog.createEngineTables(db);
  },
});
