import { PostgresAdapter, SqliteAdapter, type Kysely } from 'kysely';
import { postgresDialect } from './postgres/dialect.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import type { Dialect } from './types.ts';

export type { Dialect, TenantDb } from './types.ts';

/** The dialect of a Kysely instance, told by its adapter (no driver package is imported). */
export function dialectOf(db: Kysely<any>): Dialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter || isA(adapter, 'PostgresAdapter')) return postgresDialect;
  if (adapter instanceof SqliteAdapter || isA(adapter, 'SqliteAdapter')) return sqliteDialect;
  throw new Error('unsupported database: the engine runs on SQLite and PostgreSQL Kysely dialects');
}

/**
 * By class name along the prototype chain: a host's Kysely may be another copy than the
 * engine's (a CommonJS dialect package loads Kysely's CommonJS build beside the ESM one), and
 * `instanceof` fails across copies.
 */
function isA(value: object, className: string): boolean {
  for (let p = Object.getPrototypeOf(value); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    if (p.constructor?.name === className) return true;
  }
  return false;
}
