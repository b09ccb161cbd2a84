import type { Migration } from 'kysely';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import type { OldSteps } from './steps.ts';

/**
 * The events still to number found from a bound where a database numbers them after they commit
 * (EventLog.upgradeFinding: PostgreSQL, dialects/postgres/event-log.ts); nothing elsewhere.
 */
export const eventFinding = (t: TenantDb, steps: OldSteps): Migration => ({
  async up(db) {
    await steps.upgradeEventFinding?.(t, db);
  },
});
