import { sha256Hex } from '../idempotency/sha256.ts';
import type { Registry } from '../registry.ts';
import type { MigrationOwners } from './engine-tables.ts';
import { ENGINE_MIGRATION_NAMES } from './migrations/index.ts';
import { checksumOf, type MigrationStep } from './steps.ts';
import { tableSpec } from './table.ts';

/**
 * What a tenant migrated by this engine holds, as one hash: every resource's table as the
 * definitions imply it (both index layouts a database may take) and the names of the engine's
 * and the host's migrations. A tenant that recorded the same hash needs no plan (SPEC 12 runs
 * only where it changed), so a start need not read every tenant's tables.
 */
export function schemaFingerprint(registry: Registry, hosts: MigrationOwners = {}, steps: readonly MigrationStep[] = []): string {
  const tables = [...registry.resources.values()].map((r) => [
    tableSpec(r, { idInEveryIndex: false }),
    tableSpec(r, { idInEveryIndex: true }),
  ]);
  const migrations = {
    engine: [...ENGINE_MIGRATION_NAMES],
    ...Object.fromEntries(Object.entries(hosts).map(([o, m]) => [o, Object.keys(m)])),
  };
  return sha256Hex(JSON.stringify({ tables, migrations, steps: steps.map((s) => [s.name, checksumOf(s)]) }));
}
