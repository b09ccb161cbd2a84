import type { TenantDb } from '../../engine/dialects/types.ts';
import type { WebhookWork } from '../webhooks/store.ts';

/** Maps `client_db` names to tenant databases; one SQLite file or one PostgreSQL schema each. */
export interface TenantStore {
  /** The tenant's database, opened and migrated once per process; undefined when there is no such tenant. */
  get(clientDb: string): Promise<TenantDb | undefined>;
  /**
   * The tenant held open until the lease is released (release it in a `finally`: a cap on open
   * tenants closes only tenants nobody holds); undefined when there is no such tenant.
   */
  lease(clientDb: string): Promise<TenantLease | undefined>;
  /** Creates the tenant (tables migrated). Throws TenantExistsError when it exists. */
  create(clientDb: string): Promise<TenantDb>;
  /** Every tenant that exists. */
  list(): Promise<string[]>;
  /**
   * A server-wide value (not a tenant's), created by `make` the first time and then shared by
   * every process on the same data: a file in the data directory, or a row in PostgreSQL.
   */
  serverValue(name: string, make: () => string): Promise<string>;
  /** The schema fingerprint each tenant was last migrated to (`Engine.schemaFingerprint`), all in one read. */
  fingerprints(): Promise<Map<string, string>>;
  /** Records that a tenant was migrated to a fingerprint (after its migration committed). */
  recordFingerprint(clientDb: string, fingerprint: string): Promise<void>;
  /** Which tenants have webhooks, for the dispatcher. */
  readonly webhooks: WebhookNotes;
  /** The tenant databases this process has open (for metrics; opens nothing). */
  opened(): Promise<TenantDb[]>;
  /** PostgreSQL: the connection pool's counts; SQLite: undefined (no pool). */
  poolStats(): PoolStats | undefined;
  /** Whether the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A tenant held open until `release` (a second call does nothing). */
export interface TenantLease {
  readonly tenant: TenantDb;
  release(): void;
}

/** Runs `fn` on the tenant (undefined when there is none) holding a lease on it until `fn` settles. */
export async function usingLease<T>(tenants: TenantStore, clientDb: string, fn: (t: TenantDb | undefined) => Promise<T>): Promise<T> {
  const lease = await tenants.lease(clientDb);
  try {
    return await fn(lease?.tenant);
  } finally {
    lease?.release();
  }
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

export class TenantExistsError extends Error {
  constructor(clientDb: string) {
    super(`tenant ${clientDb} already exists`);
  }
}

/** The tenants with webhooks, shared by every process on the same data. */
export interface WebhookNotes {
  /**
   * The tenants noted to have active webhooks (one read); undefined until every tenant has been
   * looked at once (`note('', true)`).
   */
  noted(): Promise<Set<string> | undefined>;
  /** Notes whether a tenant has active webhooks; `''`: every tenant has been looked at. */
  note(clientDb: string, active: boolean): Promise<void>;
  /**
   * What each named tenant's webhooks ask (`webhookWorkSql`), without opening any: PostgreSQL
   * asks many schemas in one statement. A tenant that could not be read is left out.
   */
  work(names: readonly string[], now: number): Promise<Map<string, WebhookWork>>;
}
