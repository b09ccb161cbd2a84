import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';

/** What a connection asks of its driver (group-commit-driver.ts). */
export interface ConnectionDriver {
  /** A statement of the transaction this connection holds. */
  inTransaction(query: CompiledQuery): QueryResult<unknown>;
  /** A statement outside any transaction. */
  alone(query: CompiledQuery): Promise<QueryResult<unknown>>;
}

/** One use of the database by Kysely: a transaction (holding the connection) or lone statements. */
export class Connection implements DatabaseConnection {
  readonly #driver: ConnectionDriver;
  /** Set while this use holds the connection for a transaction. */
  release: (() => void) | undefined;
  /** Its transaction has ended: a statement sent through it now would run outside any. */
  #ended = false;

  constructor(driver: ConnectionDriver) {
    this.#driver = driver;
  }

  end(): void {
    const release = this.release;
    this.release = undefined;
    if (release) this.#ended = true;
    release?.();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#ended) throw new Error('This transaction has already ended.');
    return (this.release ? this.#driver.inTransaction(query) : await this.#driver.alone(query)) as QueryResult<R>;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query);
  }
}
