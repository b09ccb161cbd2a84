import type { TenantDb } from './dialects/types.ts';

/** The slot of a tenant's count of work running on it, in its TenantState. */
const SLOT = {};

const counter = (t: TenantDb): { running: number; endedAt: number } => t.state.get(SLOT, () => ({ running: 0, endedAt: -Infinity }));

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
    c.endedAt = performance.now();
  }
}

/** How many pieces of work (requests) run on a tenant now. */
export const runningOn = (t: TenantDb): number => counter(t).running;

/** Whether work runs on a tenant now or ended less than `ms` ago (the next piece may be on its way). */
export const usedWithin = (t: TenantDb, ms: number): boolean => {
  const c = counter(t);
  return c.running > 0 || performance.now() - c.endedAt < ms;
};
