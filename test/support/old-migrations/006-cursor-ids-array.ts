import type { Migration } from 'kysely';
import { tableRef } from '../../../engine/dialects/table-ref.ts';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * Where a database's snapshot store packs chunk ids in a type of its own (PostgreSQL: a bigint
 * array), `ids` takes that type, the chunk rows already there converted in place (the step is
 * the dialect's: MigrationSteps).
 */
export const cursorIdsArray = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.cursorIdsColumn?.(db, tableRef(t, 'mrs_cursors'));
  },
});
