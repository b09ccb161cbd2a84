import type { TenantDb } from './dialects/types.ts';

/** The slot of a tenant's count of work running on it, in its TenantState. */
const SLOT = {};

const counter = (t: TenantDb): { running: number } => t.state.get(SLOT, () => ({ running: 0 }));

/**
 * Runs `work` on a tenant counted as in use until it settles, so a host closing idle tenants
 * never closes one under a request that outlasts its idle time.
 */
export async function usingTenant<T>(t: TenantDb, work: () => Promise<T>): Promise<T> {
  const c = counter(t);
  c.running++;
  try {
    return await work();
  } finally {
    c.running--;
  }
}

/** How many pieces of work (requests) run on a tenant now. */
export const runningOn = (t: TenantDb): number => counter(t).running;
