import type { Database } from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery, type Driver, type QueryResult } from 'kysely';
import { GroupCommitDriver, type GroupCommitStats } from './group-commit-driver.ts';

/**
 * The package's `./sqlite` entry: SQLite through Kysely with its writes committed in groups
 * (group-commit-driver.ts), for Node and better-sqlite3.
 */
export type { GroupCommitStats } from './group-commit-driver.ts';

/** SQLite through Kysely (better-sqlite3), with group commit. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #driver: GroupCommitDriver;
  constructor(database: Database) {
    super({ database });
    this.#driver = new GroupCommitDriver(database);
  }
  override createDriver(): Driver {
    return this.#driver;
  }
  stats(): GroupCommitStats {
    return this.#driver.stats();
  }
  /** Runs a compiled statement outside any transaction, as a lone statement through Kysely would run. */
  alone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    return this.#driver.alone(query);
  }
}

/**
 * Kysely on a group-commit database whose `executeQuery` of a compiled query (the engine's
 * prepared statements) goes straight to the driver's lone-statement path: the same locking and
 * group membership as through Kysely, without its connection machinery (ten async steps
 * a statement, several times a small indexed SELECT: BENCHMARKS.md). Only where
 * Kysely would do nothing more: no plugins (nothing to transform the result), not in a
 * transaction (a Transaction is Kysely's own class, whose statements hold the connection).
 */
export class GroupCommitKysely extends Kysely<any> {
  readonly #dialect: GroupCommitSqliteDialect;
  readonly #direct: boolean;
  constructor(dialect: GroupCommitSqliteDialect) {
    super({ dialect });
    this.#dialect = dialect;
    this.#direct = this.getExecutor().plugins.length === 0;
  }
  override executeQuery<R>(query: Parameters<Kysely<any>['executeQuery']>[0], queryId?: Parameters<Kysely<any>['executeQuery']>[1]): Promise<QueryResult<R>> {
    if (this.#direct && queryId === undefined && 'sql' in query)
      return this.#dialect.alone(query) as Promise<QueryResult<R>>;
    return super.executeQuery<R>(query as CompiledQuery<R>, queryId);
  }
}
