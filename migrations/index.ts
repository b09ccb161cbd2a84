import type { Migration } from 'kysely';
import { engineMeta } from './001-engine-meta.ts';
import { auth } from './002-auth.ts';
import { cursors } from './003-cursors.ts';

/** The engine's own tables, in order. Names are sorted by Kysely: keep the numeric prefix. */
export const ENGINE_MIGRATIONS: Record<string, Migration> = {
  '001-engine-meta': engineMeta,
  '002-auth': auth,
  '003-cursors': cursors,
};
