import type { Kysely } from 'kysely';
import { databaseOf } from './dialects/index.ts';
import type { TenantDb } from './dialects/types.ts';
import { noteHostDb } from './host-db.ts';
import { OUTSIDE, TenantState } from './tenant-state.ts';

export interface TenantDbOptions {
  /** Names the database in migration locks and error messages (default `default`). */
  readonly key?: string;
  /** PostgreSQL: the schema to keep the tables in (default: the connection's current schema). */
  readonly schema?: string;
}

/** A host database bound to a schema (or none: ''), and the engine's state of it. */
const bound = new WeakMap<Kysely<any>, Map<string, { readonly db: Kysely<any>; readonly state: TenantState }>>();

/**
 * A host's Kysely instance (SQLite or PostgreSQL) as a database the engine can serve from. Calls
 * for the same database and schema share the engine's state of it (TenantState) and the bound
 * instance, whose compiled queries are kept by its plugins.
 */
export function tenantDb(db: Kysely<any>, options: TenantDbOptions = {}): TenantDb {
  const kind = databaseOf(db);
  const key = options.key ?? 'default';
  const { schema } = options;
  let schemas = bound.get(db);
  if (!schemas) bound.set(db, (schemas = new Map()));
  let b = schemas.get(schema ?? '');
  if (!b) {
    schemas.set(schema ?? '', (b = { db: schema === undefined ? db : kind.catalog.bindSchema(db, schema), state: new TenantState() }));
    noteHostDb(b.db, db);
  }
  const t: TenantDb =
    schema === undefined ? { key, db: b.db, ...kind, state: b.state } : { key, db: b.db, ...kind, schema, state: b.state };
  b.state.get(OUTSIDE, () => t);
  return t;
}

/**
 * Forgets the engine's state of a database and schema (its bound instance, compiled queries and
 * TenantState go with it): a host that closes an idle tenant of a shared Kysely instance calls
 * it, and the next tenantDb() starts afresh.
 */
export function releaseTenantDb(db: Kysely<any>, schema?: string): void {
  bound.get(db)?.delete(schema ?? '');
}
