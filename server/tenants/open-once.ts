import type { TenantDb } from '../../engine/dialects/types.ts';

/**
 * Opens (and migrates) each tenant once per process: concurrent first requests share one
 * opening, and a failed opening is forgotten so the next request tries again.
 */
export function openOnce(make: (clientDb: string) => Promise<TenantDb>) {
  const open = new Map<string, Promise<TenantDb>>();
  const load = (clientDb: string): Promise<TenantDb> => {
    let p = open.get(clientDb);
    if (!p) {
      p = make(clientDb);
      p.catch(() => open.delete(clientDb));
      open.set(clientDb, p);
    }
    return p;
  };
  return { open, load };
}
