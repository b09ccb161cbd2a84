import { Migrator, type Migration } from 'kysely';
import type { TenantDb } from '../../../engine/dialects/types.ts';
import { auth } from '../../../server/migrations/002-auth.ts';
import { userDisabled } from '../../../server/migrations/007-user-disabled.ts';
import { webhooks } from '../../../server/migrations/011-webhooks.ts';
import { engineMeta } from './001-engine-meta.ts';
import { cursors } from './003-cursors.ts';
import { cursorExpiryHead } from './004-cursor-expiry-head.ts';
import { cursorRowsUncompressed } from './005-cursor-rows-uncompressed.ts';
import { cursorIdsArray } from './006-cursor-ids-array.ts';
import { events } from './008-events.ts';
import { cursorChangeSeq } from './009-cursor-change-seq.ts';
import { idempotencyKeys } from './010-idempotency-keys.ts';
import { eventPositions } from './012-event-positions.ts';
import { cursorDeltas } from './013-cursor-deltas.ts';
import { lazySnapshots } from './014-lazy-snapshots.ts';
import { eventFinding } from './015-event-finding.ts';
import { POSTGRES_STEPS, SQLITE_STEPS } from './steps.ts';

/**
 * The previous release's migrations, copied from git history (engine/schema/migrations/ before
 * the engine's history became one baseline): what a database that release created has had run.
 */
export function previousReleaseMigrations(t: TenantDb, database: 'sqlite' | 'postgres', service: boolean): Record<string, Migration> {
  const steps = database === 'postgres' ? POSTGRES_STEPS : SQLITE_STEPS;
  return {
    '001-engine-meta': engineMeta,
    '003-cursors': cursors(t, steps),
    '004-cursor-expiry-head': cursorExpiryHead,
    '005-cursor-rows-uncompressed': cursorRowsUncompressed(t, steps),
    '006-cursor-ids-array': cursorIdsArray(t, steps),
    '008-events': events(t, steps),
    '009-cursor-change-seq': cursorChangeSeq,
    '010-idempotency-keys': idempotencyKeys,
    '012-event-positions': eventPositions(t, steps),
    '013-cursor-deltas': cursorDeltas(t, steps),
    '014-lazy-snapshots': lazySnapshots,
    '015-event-finding': eventFinding(t, steps),
    ...(service ? { '002-auth': auth, '007-user-disabled': userDisabled, '011-webhooks': webhooks } : {}),
  };
}

/**
 * Migrates a tenant's database as the previous release did: its engine migrations (and the
 * service's, with `service`) in one table, `mrs_migration`; `before` keeps only the names
 * sorting before it (a database an earlier release left).
 */
export async function migrateAsPreviousRelease(
  t: TenantDb,
  database: 'sqlite' | 'postgres',
  { service = false, before }: { service?: boolean; before?: string } = {},
): Promise<void> {
  const all = previousReleaseMigrations(t, database, service);
  const migrations = before === undefined ? all : Object.fromEntries(Object.entries(all).filter(([name]) => name < before));
  const migrator = new Migrator({
    db: t.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'mrs_migration',
    migrationLockTableName: 'mrs_migration_lock',
    allowUnorderedMigrations: true,
    ...(t.schema !== undefined ? { migrationTableSchema: t.schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
