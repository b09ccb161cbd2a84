import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { Lru } from '../../engine/lru.ts';

/**
 * Kysely's SQLite driver prepares every query anew, and preparing costs more than running a
 * small indexed query. The engine's queries come in a few shapes (values travel as
 * parameters), so prepared statements are kept by SQL text, least recently used out first.
 */
export function withStatementCache(db: Database, max = 500): SqliteDatabase {
  const cache = new Lru<Statement>(max);
  return {
    close: () => void db.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
      return stmt as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
