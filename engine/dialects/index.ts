import { PostgresAdapter, SqliteAdapter, type Kysely } from 'kysely';
import { postgresDatabase } from './postgres/dialect.ts';
import { sqliteDatabase } from './sqlite/dialect.ts';
import type { DatabaseKind } from './types.ts';

export type { DatabaseKind, SqlFlavour, TenantDb } from './types.ts';

/** The kind of database behind a Kysely instance, told by its adapter (no driver package is imported). */
export function databaseOf(db: Kysely<any>): DatabaseKind {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter || isA(adapter, 'PostgresAdapter')) return postgresDatabase;
  if (adapter instanceof SqliteAdapter || isA(adapter, 'SqliteAdapter')) return sqliteDatabase;
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
