import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';

/**
 * The events still to number found from a bound where a database numbers them after they commit
 * (EventLog.upgradeFinding: PostgreSQL, dialects/postgres/event-log.ts); nothing elsewhere.
 */
export const eventFinding = (t: TenantDb): Migration => ({
  async up(db) {
    await t.dialect.events.upgradeFinding?.(t, db);
  },
});
