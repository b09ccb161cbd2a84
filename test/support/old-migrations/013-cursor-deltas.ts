import type { Migration } from 'kysely';
import { tableRef } from '../../../engine/dialects/table-ref.ts';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * Where a database keeps chunk ids in a type of their own (006), cursor chunk rows get a text
 * column beside it for ascending deltas (engine/cursor/deltas.ts), a character an id where the
 * type takes eight bytes (the step is the dialect's: MigrationSteps). Rows written before keep
 * theirs in `ids`.
 */
export const cursorDeltas = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.cursorDeltasColumn?.(db, tableRef(t, 'mrs_cursors'));
  },
});
