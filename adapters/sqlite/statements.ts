import type { Database, Statement } from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { Lru } from '../../engine/lru.ts';

/** A one-row `INSERT INTO "t" (...) VALUES (...) RETURNING *`: the table, and the INSERT without its RETURNING. */
const ONE_ROW_RETURNING_ALL = /^(insert into ("(?:[^"]|"")+") \([^)]*\) values \([^)]*\)) returning \*$/;

/** The INSERT alone and the SELECT of the row it wrote, standing in for a one-row INSERT ... RETURNING *. */
interface InsertThenSelect {
  readonly insert: Statement;
  readonly select: Statement;
}

const insertThenSelect = new WeakMap<Statement, InsertThenSelect>();

/** better-sqlite3's statements by SQL text: preparing one costs more than running a small indexed query. */
export function statementsOf(db: Database, max = 500) {
  const cache = new Lru<Statement>(max);
  return (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      cache.set(sql, (stmt = db.prepare(sql)));
      // SQLite fills RETURNING's rows through a table of their own, which costs a create more than a SELECT of its row (BENCHMARKS.md, "Group commit").
      const oneRow = ONE_ROW_RETURNING_ALL.exec(sql);
      if (oneRow)
        insertThenSelect.set(stmt, { insert: db.prepare(oneRow[1]!), select: db.prepare(`select * from ${oneRow[2]} where rowid = ?`) });
    }
    return stmt;
  };
}

/** Runs a statement of statementsOf: a reader's rows, or a write's changes. */
export function run(stmt: Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  const twin = insertThenSelect.get(stmt);
  if (twin) {
    const { changes, lastInsertRowid } = twin.insert.run(parameters);
    return { rows: changes === 1 ? [twin.select.get(lastInsertRowid)] : [] };
  }
  if (stmt.reader) return { rows: stmt.all(parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
