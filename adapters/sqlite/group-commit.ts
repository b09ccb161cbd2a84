import type { Database } from 'better-sqlite3';
import {
  Kysely,
  SingleConnectionProvider,
  SqliteAdapter,
  SqliteDialect,
  Transaction,
  TransactionBuilder,
  type CompiledQuery,
  type DialectAdapter,
  type Driver,
  type QueryResult,
} from 'kysely';
import { Connection } from './connection.ts';
import { offerWriteThen } from '../../engine/sql/write-then.ts';
import { GroupCommitDriver, type GroupCommitStats } from './group-commit-driver.ts';

/**
 * The package's `./sqlite` entry: SQLite through Kysely with its writes committed in groups
 * (group-commit-driver.ts), for Node and better-sqlite3.
 */
export type { GroupCommitStats } from './group-commit-driver.ts';

/**
 * SQLite does run DDL in a transaction. Saying so makes Kysely's Migrator run in one, whose
 * `begin immediate` keeps other processes migrating the same file out (its SQLite lock is none).
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

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
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }
  stats(): GroupCommitStats {
    return this.#driver.stats();
  }
  /** Runs a compiled statement outside any transaction, as a lone statement through Kysely would run. */
  alone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    return this.#driver.alone(query);
  }
  /** The driver itself, for GroupCommitKysely's transactions. */
  get driver(): GroupCommitDriver {
    return this.#driver;
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
    // A write and the statements made from its result, kept together (engine/sql/write-then.ts):
    // a create and its event without a transaction. Only without plugins, where the compiled
    // statements are what runs.
    if (this.#direct) offerWriteThen(this, (write, then) => dialect.driver.aloneThen(write, then));
  }
  override executeQuery<R>(
    query: Parameters<Kysely<any>['executeQuery']>[0],
    queryId?: Parameters<Kysely<any>['executeQuery']>[1],
  ): Promise<QueryResult<R>> {
    if (this.#direct && queryId === undefined && 'sql' in query) return this.#dialect.alone(query) as Promise<QueryResult<R>>;
    return super.executeQuery<R>(query as CompiledQuery<R>, queryId);
  }
  /**
   * Every write of the engine is a transaction with its event (SPEC 9), so a transaction's own
   * cost counts as much as its statements': Kysely's builds a connection provider, an asserting
   * executor and its Transaction, and runs each statement through them (BENCHMARKS.md, "The
   * change feed's cost on writes"). Here the transaction holds the connection as Kysely's does
   * (the driver's begin, commit and rollback), and its compiled statements go straight to the
   * driver, as a lone one does above.
   */
  override transaction(): TransactionBuilder<any> {
    if (!this.#direct) return super.transaction();
    return new DirectTransactionBuilder(this.#dialect, this);
  }
}

/** GroupCommitKysely's transactions (its `transaction()`). */
class DirectTransactionBuilder extends TransactionBuilder<any> {
  readonly #driver: GroupCommitDriver;
  readonly #db: Kysely<any>;
  constructor(dialect: GroupCommitSqliteDialect, db: Kysely<any>) {
    // Kysely's own props, for what its builder does with them (setIsolationLevel() and
    // setAccessMode() give a plain TransactionBuilder, which runs as Kysely's transactions do).
    const { driver } = dialect;
    super({ config: { dialect }, executor: db.getExecutor(), driver, dialect } as unknown as ConstructorParameters<
      typeof TransactionBuilder<any>
    >[0]);
    this.#driver = driver;
    this.#db = db;
  }
  override execute<T>(callback: (trx: Transaction<any>) => Promise<T>): Promise<T> {
    // The connection comes as Kysely's own transactions and lone statements take theirs, so a
    // transaction keeps its place among the statements sent in the same turn.
    return this.#db.getExecutor().provideConnection(async (c) => {
      const connection = c as Connection;
      await this.#driver.beginTransaction(connection);
      const trx = new DirectTransaction(this.#db, this.#driver, connection);
      try {
        const result = await callback(trx);
        await this.#driver.commitTransaction(connection);
        return result;
      } catch (error) {
        await this.#driver.rollbackTransaction(connection);
        throw error;
      }
    });
  }
}

/** A transaction of GroupCommitKysely: its compiled statements run on the driver, in the transaction. */
class DirectTransaction extends Transaction<any> {
  readonly #driver: GroupCommitDriver;
  readonly #connection: Connection;
  constructor(db: Kysely<any>, driver: GroupCommitDriver, connection: Connection) {
    const executor = db.getExecutor().withConnectionProvider(new SingleConnectionProvider(connection));
    super({ config: {}, executor, driver, dialect: {} } as unknown as ConstructorParameters<typeof Transaction<any>>[0]);
    this.#driver = driver;
    this.#connection = connection;
  }
  override executeQuery<R>(
    query: Parameters<Kysely<any>['executeQuery']>[0],
    queryId?: Parameters<Kysely<any>['executeQuery']>[1],
  ): Promise<QueryResult<R>> {
    if (queryId !== undefined || !('sql' in query)) return super.executeQuery<R>(query as CompiledQuery<R>, queryId);
    try {
      if (!this.#connection.release) throw new Error('This transaction has already ended.');
      return Promise.resolve(this.#driver.inTransaction(query) as QueryResult<R>);
    } catch (e) {
      return Promise.reject(e);
    }
  }
}
