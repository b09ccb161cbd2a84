import type { TenantDb } from '../../engine/dialects/types.ts';

/** The tenants whose opening succeeded; ones still opening are waited for, failed ones left out. */
export async function settled(opening: Iterable<Promise<TenantDb>>): Promise<TenantDb[]> {
  const all = await Promise.allSettled(opening);
  return all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
}
