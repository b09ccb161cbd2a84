import type { Migration } from 'kysely';
import { tableRef } from '../../dialects/table-ref.ts';
import type { TenantDb } from '../../dialects/types.ts';

/**
 * Cursor chunk rows are stored as written, where a database would compress a chunk row's long
 * values (the step is the dialect's: MigrationSteps). The table is otherwise unchanged.
 */
export const cursorRowsUncompressed = (t: TenantDb): Migration => ({
  async up(db) {
    await t.dialect.migrationSteps.cursorRowsUncompressed?.(db, tableRef(t, 'mrs_cursors'));
  },
});
