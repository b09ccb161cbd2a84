import type { TenantDb } from './dialects/types.ts';

/**
 * What the engine keeps about one tenant database between requests: its cursors (the sweep's
 * schedule, the process cache's share), what its snapshots learned. One per database (and
 * schema), made by tenantDb(), so a host may make a TenantDb per request and still find it.
 * Each user keeps its value under a slot object of its own; values go with the database.
 */
export class TenantState {
  readonly #slots = new WeakMap<object, unknown>();

  /** The value kept under `slot`, made by `make` the first time. */
  get<T>(slot: object, make: () => T): T {
    let value = this.#slots.get(slot) as T | undefined;
    if (value === undefined) this.#slots.set(slot, (value = make()));
    return value;
  }
}

/** The slot of a tenant's state holding a TenantDb of it that is not a transaction (tenantDb() keeps it). */
export const OUTSIDE = {};

/**
 * The database outside any transaction: `t` itself, or, for a TenantDb whose `db` is a
 * transaction (a keyed write's, a batch's), the one tenantDb() made; undefined when there is none.
 * For work that runs after the transaction has ended.
 */
export function outsideTransactions(t: TenantDb): TenantDb | undefined {
  if (!t.db.isTransaction) return t;
  return t.state.get<TenantDb | undefined>(OUTSIDE, () => undefined);
}
