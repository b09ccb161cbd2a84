import type { Migration } from 'kysely';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * The feed's events numbered after they commit where a database needs it (EventLog.upgrade:
 * PostgreSQL, dialects/postgres/event-log.ts); nothing elsewhere.
 */
export const eventPositions = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.upgradeEvents?.(t, db);
  },
});
