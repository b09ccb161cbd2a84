import type { Database, Statement } from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { Lru } from '../../engine/lru.ts';

/** A one-row `INSERT INTO "t" (...) VALUES (...) RETURNING *`: the table, and the INSERT without its RETURNING. */
const ONE_ROW_INSERT = /^(insert into ("(?:[^"]|"")+") \([^)]*\) values \([^)]*\)) returning \*$/;

/** An `UPDATE "t" SET ... WHERE "id" = ? ... RETURNING *`: the UPDATE without its RETURNING, the table, its SET (no literal, call or subquery). */
const UPDATE_BY_ID = /^(update ("(?:[^"]|"")+") set ([^'()]*?) where "id" = \?(?: and [\s\S]*)?) returning \*$/;

/** The write alone and the SELECT of the one row it wrote, standing in for a one-row write's RETURNING *. */
interface WriteThenSelect {
  readonly write: Statement;
  readonly select: Statement;
  /** The select's parameter: the row's rowid (an INSERT's) or its id among the write's parameters. */
  readonly key: (parameters: readonly unknown[], rowid: number | bigint) => unknown;
}

const writeThenSelect = new WeakMap<Statement, WriteThenSelect>();

/** better-sqlite3's statements by SQL text: preparing one costs more than running a small indexed query. */
export function statementsOf(db: Database, max = 500) {
  const cache = new Lru<Statement>(max);
  return (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      cache.set(sql, (stmt = db.prepare(sql)));
      // SQLite fills RETURNING's rows through a table of their own, which costs a one-row write more than a SELECT of its row (BENCHMARKS.md, "Group commit").
      const twin = twinOf(db, sql);
      if (twin) writeThenSelect.set(stmt, twin);
    }
    return stmt;
  };
}

/** What stands in for `sql` when it is a one-row write whose row a SELECT finds again by its key. */
function twinOf(db: Database, sql: string): WriteThenSelect | undefined {
  const insert = ONE_ROW_INSERT.exec(sql);
  if (insert)
    return { write: db.prepare(insert[1]!), select: db.prepare(`select * from ${insert[2]} where rowid = ?`), key: (_, rowid) => rowid };
  const update = UPDATE_BY_ID.exec(sql);
  if (!update || /(?:^|, )"id" =/.test(update[3]!) || !idIsKey(db, update[2]!)) return undefined;
  // The id's parameter follows the SET's; a quoted name may hold a `?`.
  const at = update[3]!.replace(/"(?:[^"]|"")*"/g, '').split('?').length - 1;
  return {
    write: db.prepare(update[1]!),
    select: db.prepare(`select * from ${update[2]} where "id" = ?`),
    key: (parameters) => parameters[at],
  };
}

/** The table's `id` is its whole primary key: at most one row has a given id. */
function idIsKey(db: Database, table: string): boolean {
  const columns = db.pragma(`table_info(${table})`) as { name: string; pk: number }[];
  const keys = columns.filter((c) => c.pk > 0);
  return keys.length === 1 && keys[0]!.name === 'id';
}

/** Runs a statement of statementsOf: a reader's rows, or a write's changes. */
export function run(stmt: Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  const twin = writeThenSelect.get(stmt);
  if (twin) {
    const { changes, lastInsertRowid } = twin.write.run(parameters);
    return { rows: changes === 1 ? [twin.select.get(twin.key(parameters, lastInsertRowid))] : [] };
  }
  if (stmt.reader) return { rows: stmt.all(parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
