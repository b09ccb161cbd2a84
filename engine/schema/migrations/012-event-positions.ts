import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';

/**
 * The feed's events numbered after they commit where a database needs it (EventLog.upgrade:
 * PostgreSQL, dialects/postgres/event-log.ts); nothing elsewhere.
 */
export const eventPositions = (t: TenantDb): Migration => ({
  async up(db) {
    await t.dialect.events.upgrade?.(t, db);
  },
});
