import type { Migration } from 'kysely';
import { auth } from './002-auth.ts';

/** The service's tables (users, roles, API keys): passed to createEngine by `mrs serve` only. */
export const SERVER_MIGRATIONS: Record<string, Migration> = {
  '002-auth': auth,
};
