import type { Migration } from 'kysely';
import { auth } from './002-auth.ts';
import { userDisabled } from './007-user-disabled.ts';
import { webhooks } from './011-webhooks.ts';
import { refreshTokens } from './016-refresh-tokens.ts';

/**
 * The service's tables (users, roles, API keys, disabled users, webhooks, refresh tokens): passed
 * to createEngine by `mrs serve` only, as the owner `service` (recorded in `mrs_migration_service`).
 */
export const SERVER_MIGRATIONS: Record<string, Migration> = {
  '002-auth': auth,
  '007-user-disabled': userDisabled,
  '011-webhooks': webhooks,
  '016-refresh-tokens': refreshTokens,
};
