import type { Migration } from 'kysely';
import { tableRef } from '../../dialects/table-ref.ts';
import type { TenantDb } from '../../dialects/types.ts';

/**
 * Where a database's snapshot store packs chunk ids in a type of its own (PostgreSQL: a bigint
 * array), `ids` takes that type, the chunk rows already there converted in place (the step is
 * the dialect's: MigrationSteps).
 */
export const cursorIdsArray = (t: TenantDb): Migration => ({
  async up(db) {
    await t.dialect.migrationSteps.cursorIdsColumn?.(db, tableRef(t, 'mrs_cursors'));
  },
});
