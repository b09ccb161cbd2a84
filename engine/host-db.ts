import type { Kysely } from 'kysely';
import type { TenantDb } from './dialects/types.ts';

/** Each schema-bound instance's host instance, which every schema of the database shares. */
const hosts = new WeakMap<Kysely<any>, Kysely<any>>();

/** Notes that `bound` is `host` bound to a schema (tenantDb()). */
export const noteHostDb = (bound: Kysely<any>, host: Kysely<any>): void => void hosts.set(bound, host);

/**
 * The host's Kysely instance a tenant was made from (its own when not bound to a schema):
 * tenants with the same one are schemas of one database, reached through one pool.
 */
export const hostDbOf = (t: TenantDb): Kysely<any> => hosts.get(t.db) ?? t.db;
