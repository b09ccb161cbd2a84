import type { Kysely } from 'kysely';
import { dialectOf } from './dialects/index.ts';
import type { TenantDb } from './dialects/types.ts';

export interface TenantDbOptions {
  /** Names the database in migration locks and error messages (default `default`). */
  readonly key?: string;
  /** PostgreSQL: the schema to keep the tables in (default: the connection's current schema). */
  readonly schema?: string;
}

/** A host's Kysely instance (SQLite or PostgreSQL) as a database the engine can serve from. */
export function tenantDb(db: Kysely<any>, options: TenantDbOptions = {}): TenantDb {
  const dialect = dialectOf(db);
  const key = options.key ?? 'default';
  if (options.schema === undefined) return { key, db, dialect };
  return { key, db: dialect.bindSchema(db, options.schema), dialect, schema: options.schema };
}
