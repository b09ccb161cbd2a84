import type { TenantStore } from './tenants/index.ts';

/** A fingerprint recorded by a release before this order was kept: older than any that has one. */
const BEFORE_ORDER = '0';
const nameOf = (fingerprint: string) => `definitions-seen-${fingerprint}`;

/** First-seen times never change once written, so each store's are read once per process. */
const cache = new WeakMap<TenantStore, Map<string, Promise<number>>>();

function firstSeen(tenants: TenantStore, fingerprint: string, make: () => string): Promise<number> {
  let seen = cache.get(tenants);
  if (!seen) cache.set(tenants, (seen = new Map()));
  let at = seen.get(fingerprint);
  if (!at) {
    at = tenants.serverValue(nameOf(fingerprint), make).then(Number);
    // A failed read is tried again by the next caller rather than kept.
    at.catch(() => seen.delete(fingerprint));
    seen.set(fingerprint, at);
  }
  return at;
}

/**
 * Notes when these definitions (their schema fingerprint) first ran on this data, unless some
 * process did before. Every service notes its own before it migrates anything, so any fingerprint
 * a tenant records was noted first: that is what orders them.
 */
export const noteDefinitions = (tenants: TenantStore, fingerprint: string): Promise<number> =>
  firstSeen(tenants, fingerprint, () => String(Date.now()));

/**
 * Whether a tenant recorded at `recorded` was migrated by definitions that first ran after
 * `mine` (a newer release): such a tenant is never migrated back, it is served as it is.
 */
export async function isAhead(tenants: TenantStore, mine: string, recorded: string | undefined): Promise<boolean> {
  if (recorded === undefined || recorded === mine) return false;
  const [theirs, ours] = await Promise.all([firstSeen(tenants, recorded, () => BEFORE_ORDER), noteDefinitions(tenants, mine)]);
  return theirs > ours;
}
