import type { TenantDb } from '../../engine/dialects/types.ts';
import { grantsOf, rolesOf, userActive } from './accounts.ts';
import { findKey, touchKey } from './api-keys.ts';
import { permissionsOf, type Can } from './permissions.ts';

/** What a token's key allows right now: whether it is live, whose it is, what its user may do. */
export interface KeyState {
  readonly username: string;
  readonly revoked: boolean;
  readonly can: Can;
  /** The user's role names (SPEC 11: `enter.<state>.roles`). */
  readonly roles: readonly string[];
}

/** How long a process trusts what it read about a key: revoking a key or disabling its user ends its tokens within this (SPEC: 5 s). */
export const KEY_STATE_TTL_MS = 2_000;
/** `last_used` is written at most this often per key and process, so reads do not turn into writes. */
const TOUCH_EVERY_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface KeyStateCache {
  get(tenant: TenantDb, keyId: string): Promise<KeyState | undefined>;
  /** Drops what this process knows about a key (after revoking it here). */
  forget(clientDb: string, keyId: string): void;
}

/** Reads a key's row and its user's grants at most once per TTL per process; `now` is the clock. */
export function keyStateCache(options: { ttlMs?: number; now?: () => number } = {}): KeyStateCache {
  const ttlMs = options.ttlMs ?? KEY_STATE_TTL_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { until: number; state: Promise<KeyState | undefined> }>();

  async function load(tenant: TenantDb, keyId: string): Promise<KeyState | undefined> {
    const row = await findKey(tenant, keyId);
    if (!row || !(await userActive(tenant, row.username))) return undefined; // a disabled user's keys are as good as revoked
    if (!row.revoked && (row.last_used === null || Date.parse(row.last_used) < Date.now() - TOUCH_EVERY_MS)) await touchKey(tenant, keyId);
    const roles = await rolesOf(tenant, row.username);
    return { username: row.username, revoked: row.revoked !== null, can: permissionsOf(await grantsOf(tenant, roles)), roles };
  }

  function prune(at: number) {
    if (entries.size < MAX_ENTRIES) return;
    for (const [k, e] of entries) if (e.until <= at) entries.delete(k);
    if (entries.size >= MAX_ENTRIES) entries.clear();
  }

  return {
    get(tenant, keyId) {
      const id = `${tenant.key}\0${keyId}`;
      const at = now();
      const hit = entries.get(id);
      if (hit && hit.until > at) return hit.state;
      prune(at);
      const state = load(tenant, keyId);
      entries.set(id, { until: at + ttlMs, state });
      state.catch(() => entries.get(id)?.state === state && entries.delete(id));
      return state;
    },
    forget: (clientDb, keyId) => void entries.delete(`${clientDb}\0${keyId}`),
  };
}
