import type { Migration } from 'kysely';
import type { TenantDb } from '../../dialects/types.ts';
import { baseline } from './001-baseline.ts';
import { eventParents } from './002-event-parents.ts';

/** The migration that makes the engine's tables as they are today, where none were. */
export const BASELINE = '001-baseline';

/**
 * The engine's own migrations in a tenant database, in the order of their names (Kysely sorts
 * them), recorded in the engine's own table (engine-tables.ts). Every database the engine serves
 * gets these, embedded ones too. A later change of the engine's tables is a new migration here.
 */
const ENGINE_MIGRATIONS: Readonly<Record<string, (t: TenantDb) => Migration>> = {
  [BASELINE]: baseline,
  '002-event-parents': eventParents,
};

export const engineMigrations = (t: TenantDb): Record<string, Migration> =>
  Object.fromEntries(Object.entries(ENGINE_MIGRATIONS).map(([name, m]) => [name, m(t)]));

export const ENGINE_MIGRATION_NAMES: readonly string[] = Object.keys(ENGINE_MIGRATIONS);

/**
 * The engine migrations the release before the baseline ran, in its one table `mrs_migration`
 * (shared then with the service's): a database with every one of them has today's tables.
 */
export const MIGRATIONS_BEFORE_BASELINE: readonly string[] = [
  '001-engine-meta',
  '003-cursors',
  '004-cursor-expiry-head',
  '005-cursor-rows-uncompressed',
  '006-cursor-ids-array',
  '008-events',
  '009-cursor-change-seq',
  '010-idempotency-keys',
  '012-event-positions',
  '013-cursor-deltas',
  '014-lazy-snapshots',
  '015-event-finding',
];
