import type { TenantDb } from '../dialects/types.ts';
import { ATTACHED_FILES } from './definition.ts';
import type { FileStore, StoredObject } from './store.ts';

/** Bytes younger than this are never swept: an upload in flight has stored them, its row not yet committed. */
export const SWEEP_MIN_AGE_MS = 3_600_000;

export interface SweepOptions {
  /** Only say what would be removed. */
  readonly dryRun?: boolean;
  readonly now?: number;
  readonly minAgeMs?: number;
}

export interface SweepResult {
  /** Removed (or, on a dry run, to be removed): bytes no row names, and unfinished writes. */
  readonly removed: readonly StoredObject[];
  /** Objects kept because a row names them, they are young, or their tenant is unknown. */
  readonly kept: number;
}

const CHUNK = 500;

/**
 * Removes the stored bytes no file row names (a crash between storing and committing, a failed
 * upload, content replaced): only those older than an hour, and never bytes a row names, deleted
 * rows included. A tenant the host does not know keeps its bytes.
 */
export async function sweepFiles(
  store: FileStore,
  tenantOf: (key: string) => Promise<TenantDb | undefined>,
  options: SweepOptions = {},
): Promise<SweepResult> {
  const before = (options.now ?? Date.now()) - (options.minAgeMs ?? SWEEP_MIN_AGE_MS);
  const candidates = new Map<string, StoredObject[]>();
  let kept = 0;
  for await (const o of store.list()) {
    if (o.modified > before) kept++;
    else candidates.set(o.tenant, [...(candidates.get(o.tenant) ?? []), o]);
  }
  const removed: StoredObject[] = [];
  for (const [key, objects] of candidates) {
    const tenant = await tenantOf(key);
    if (!tenant) {
      kept += objects.length;
      continue;
    }
    const named = await namedShas(
      tenant,
      objects.flatMap((o) => (o.sha256 === undefined ? [] : [o.sha256])),
    );
    for (const o of objects) {
      if (o.sha256 !== undefined && named.has(o.sha256)) {
        kept++;
        continue;
      }
      if (!options.dryRun) await store.delete(o);
      removed.push(o);
    }
  }
  return { removed, kept };
}

/** Which of these sha256s a file row of the tenant names, deleted rows included. */
async function namedShas(tenant: TenantDb, shas: readonly string[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let i = 0; i < shas.length; i += CHUNK) {
    const rows = await tenant.db
      .selectFrom(ATTACHED_FILES)
      .select('sha256')
      .distinct()
      .where('sha256', 'in', shas.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) named.add(r.sha256 as string);
  }
  return named;
}
