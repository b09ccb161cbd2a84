import type { Migration } from 'kysely';
import { tableRef } from '../../../engine/dialects/table-ref.ts';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * Cursor chunk rows are stored as written, where a database would compress a chunk row's long
 * values (the step is the dialect's: MigrationSteps). The table is otherwise unchanged.
 */
export const cursorRowsUncompressed = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.cursorRowsUncompressed?.(db, tableRef(t, 'mrs_cursors'));
  },
});
