import type { Migration } from 'kysely';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * The change feed (SPEC 9): `mrs_events`, one row per committed change, and the gone mark in
 * `mrs_meta`; each database creates them its way (its EventLog: how seqs follow commit order).
 */
export const events = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.createEventTables(db);
  },
});
