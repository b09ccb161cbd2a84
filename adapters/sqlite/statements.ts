import type { Database, Statement } from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { Lru } from '../../engine/lru.ts';

/** better-sqlite3's statements by SQL text: preparing one costs more than running a small indexed query. */
export function statementsOf(db: Database, max = 500) {
  const cache = new Lru<Statement>(max);
  return (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
}

export function run(stmt: Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (stmt.reader) return { rows: stmt.all(parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
