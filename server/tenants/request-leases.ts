import type { MiddlewareHandler } from 'hono';
import type { TenantDb } from '../../engine/dialects/types.ts';
import type { TenantLease } from './types.ts';

/** The leases taken for each request being answered. */
const held = new WeakMap<Request, TenantLease[]>();

/**
 * Holds what a request's caller leased until its answer is made, whatever happens between (a
 * refusal by a rate limit, an error): the one place those leases end. An event stream that
 * outlives the answer holds its tenant by following its feed.
 */
export const requestLeases: MiddlewareHandler = async (c, next) => {
  const leases: TenantLease[] = [];
  held.set(c.req.raw, leases);
  try {
    await next();
  } finally {
    held.delete(c.req.raw);
    for (const lease of leases.splice(0)) lease.release();
  }
};

/** Keeps the lease until the request's answer is made; a request outside `requestLeases` holds it not at all. */
export function holdFor(req: Request, lease: TenantLease): TenantDb {
  const leases = held.get(req);
  if (leases) leases.push(lease);
  else lease.release();
  return lease.tenant;
}
