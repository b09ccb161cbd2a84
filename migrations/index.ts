import type { Migration } from 'kysely';
import { engineMeta } from './001-engine-meta.ts';
import { auth } from './002-auth.ts';
import { cursors } from './003-cursors.ts';
import { cursorExpiryHead } from './004-cursor-expiry-head.ts';
import { cursorRowsUncompressed } from './005-cursor-rows-uncompressed.ts';
import { cursorIdsArray } from './006-cursor-ids-array.ts';
import { userDisabled } from './007-user-disabled.ts';

/**
 * The engine's own tables, in order (names are sorted by Kysely: keep the numeric prefix).
 * Every database the engine serves gets these, embedded ones too.
 */
export const ENGINE_MIGRATIONS: Record<string, Migration> = {
  '001-engine-meta': engineMeta,
  '003-cursors': cursors,
  '004-cursor-expiry-head': cursorExpiryHead,
  '005-cursor-rows-uncompressed': cursorRowsUncompressed,
  '006-cursor-ids-array': cursorIdsArray,
};

/** The service's tables (users, roles, API keys, disabled users): passed to createEngine by `mrs serve` only. */
export const SERVER_MIGRATIONS: Record<string, Migration> = {
  '002-auth': auth,
  '007-user-disabled': userDisabled,
};
