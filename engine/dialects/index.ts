import { PostgresAdapter, SqliteAdapter, type Kysely } from 'kysely';
import { postgresDialect } from './postgres.ts';
import { sqliteDialect } from './sqlite.ts';
import type { Dialect } from './types.ts';

export type { Dialect, TenantDb } from './types.ts';

/** The dialect of a Kysely instance, told by its adapter (no driver package is imported). */
export function dialectOf(db: Kysely<any>): Dialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return postgresDialect;
  if (adapter instanceof SqliteAdapter) return sqliteDialect;
  throw new Error('unsupported database: the engine runs on SQLite and PostgreSQL Kysely dialects');
}
