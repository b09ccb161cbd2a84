import type { Migration } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import { sha256Hex } from '../idempotency/sha256.ts';
import type { Registry } from '../registry.ts';
import { engineMigrations } from './migrations/index.ts';
import { tableSpec } from './table.ts';

/** The migration steps are made lazily from a tenant: their names are known without one. */
const NAMES_ONLY = {} as TenantDb;

/**
 * What a tenant migrated by this engine holds, as one hash: every resource's table as the
 * definitions imply it (both index layouts a database may take) and the names of the engine's
 * and the host's migrations. A tenant that recorded the same hash needs no plan (SPEC 12 runs
 * only where it changed), so a start need not read every tenant's tables.
 */
export function schemaFingerprint(registry: Registry, extra: Record<string, Migration> = {}): string {
  const tables = [...registry.resources.values()].map((r) => [
    tableSpec(r, { indexesHoldId: false }),
    tableSpec(r, { indexesHoldId: true }),
  ]);
  const migrations = [...Object.keys(engineMigrations(NAMES_ONLY)), ...Object.keys(extra)].sort();
  return sha256Hex(JSON.stringify({ tables, migrations }));
}
