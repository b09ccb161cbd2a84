import type { Database, Statement } from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { Connection, type ConnectionDriver } from './connection.ts';
import { Lock } from './lock.ts';
import { run, statementsOf } from './statements.ts';
import { takeWriteLock } from './write-lock.ts';
import type { Then } from '../../engine/sql/write-then.ts';

type StatementKind = 'read' | 'write' | 'pragma';

interface Group {
  readonly waiting: { resolve: () => void; reject: (e: unknown) => void }[];
}

/** Settles once this turn's I/O is handled: where the turn's statements start, back to back. */
const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A lone read waiting for its turn's batch. */
interface QueuedRead {
  readonly query: CompiledQuery;
  readonly resolve: (r: QueryResult<unknown>) => void;
  readonly reject: (e: unknown) => void;
}

export interface GroupCommitStats {
  /** Groups committed (or failed), and the writes they carried. */
  readonly groups: number;
  readonly writes: number;
  /** Batches of lone reads run, and the reads they carried. */
  readonly readBatches: number;
  readonly reads: number;
}

/**
 * SQLite writes committed in groups.
 *
 * A commit costs more than a small write: SQLite appends a frame to its log for every page the
 * transaction touched (a work order's row and each of its indexes), so two creates in one
 * commit write the shared pages once. The writes of requests that arrive together (one turn of
 * the event loop) therefore share one transaction: each keeps its own atomicity (a transaction
 * is a SAVEPOINT inside the group, a lone statement is rolled back by SQLite alone when it
 * fails), and each is answered only once the group has committed, so an answer still means the
 * write is in the database. If the commit itself fails, every write of the group fails with it
 * and none is kept.
 *
 * Everything runs on one connection, whose page cache stays warm (a second connection for reads
 * would find its cache dropped after every commit of the first). A read never sees a write
 * still in progress (transactions hold the connection until they end), and a read that saw the
 * writes of a group not yet committed is answered only once that group has committed: if it
 * fails, the read fails too, so nothing that was not kept is ever shown.
 *
 * The statements of requests that arrive together also run together: nothing starts on the
 * connection until the turn's I/O is handled (setImmediate); then the turn's lone reads run one
 * after another as one batch, each with its own answer, and its lone writes and transactions
 * one after another. Each still sees every write answered before it was sent. Under load this
 * keeps SQLite's code and pages warm from one statement to the next instead of cold after each
 * request's other work, where a small statement costs several times its own time in server CPU
 * (BENCHMARKS.md, "HTTP hot paths": reads by id, later pages, PATCH and create). A lone request
 * pays one setImmediate hop, and measured no slower for it.
 */
export class GroupCommitDriver implements Driver, ConnectionDriver {
  readonly #writer: Database;
  readonly #write: (sql: string) => Statement;
  readonly #lock = new Lock();
  /** What a statement is, by SQL text (whether it writes is asked of the writer's prepared statement). */
  readonly #kinds = new Map<string, StatementKind>();
  #group: Group | undefined;
  /** Lone writes and transactions waiting for their turn's end (#startable). */
  #starting = 0;
  /** Lone reads sent this turn, run together by #runReads. */
  #reads: QueuedRead[] = [];
  #stats = { groups: 0, writes: 0, readBatches: 0, reads: 0 };

  constructor(writer: Database) {
    this.#writer = writer;
    this.#write = statementsOf(writer);
    // Waiting for another connection's write lock is takeWriteLock's (write-lock.ts).
    writer.pragma('busy_timeout = 0');
  }

  stats = (): GroupCommitStats => ({ ...this.#stats });

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Connection(this);
  }

  async releaseConnection(): Promise<void> {}

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as Connection;
    await this.#startable();
    await this.#lock.acquire();
    try {
      await this.#join();
      this.#write('savepoint mrs_write').run();
    } catch (e) {
      this.#lock.release();
      throw e;
    }
    c.release = this.#lock.release;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as Connection;
    this.#write('release mrs_write').run();
    const committed = this.#member();
    c.end();
    await committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as Connection;
    // After a failed group commit the transaction is already over; nothing to undo here.
    if (!c.release) return;
    try {
      // SQLite rolls the whole transaction back by itself on some errors (I/O, disk full): then
      // there is no savepoint left, and the group fails as a whole (see #join).
      if (this.#writer.inTransaction) {
        this.#write('rollback to mrs_write').run();
        this.#write('release mrs_write').run();
      }
    } finally {
      c.end();
    }
  }

  // A transaction's own savepoints (Kysely's trx.savepoint()), nested in its member savepoint.
  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(savepointCommand('savepoint', name));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(savepointCommand('rollback to', name));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(savepointCommand('release', name));
  }

  async destroy(): Promise<void> {
    // What was sent before destroy runs first: it waits for its turn's end, as destroy does.
    for (;;) {
      await this.#startable();
      await this.#lock.acquire();
      if (this.#starting === 0 && this.#reads.length === 0) break;
      this.#lock.release();
    }
    try {
      if (this.#group) this.#commit(this.#group);
    } finally {
      this.#lock.release();
      this.#writer.close();
    }
  }

  /** Runs a statement of a transaction: on the writer, in the transaction. */
  inTransaction(query: CompiledQuery): QueryResult<unknown> {
    return run(this.#write(query.sql), query.parameters);
  }

  /**
   * Runs a statement outside any transaction: a write joins the group; a read runs with the
   * other reads of its turn (#runReads), and when it saw an open group's writes it is answered
   * after that group commits; a PRAGMA reads or sets the connection itself, outside any group.
   */
  alone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    let kind: StatementKind;
    try {
      kind = this.#kindOf(query.sql); // prepares the statement: SQL that does not compile throws
    } catch (e) {
      return Promise.reject(e);
    }
    if (kind === 'write') return this.#startable().then(() => this.#aloneNow(query, kind));
    if (kind !== 'read') return this.#aloneNow(query, kind);
    return new Promise((resolve, reject) => {
      if (this.#reads.push({ query, resolve, reject }) === 1) setImmediate(this.#runReads);
    });
  }

  /** Settles at the end of this turn, where the turn's lone writes and transactions start, back to back. */
  async #startable(): Promise<void> {
    this.#starting++;
    try {
      await turnEnd();
    } finally {
      this.#starting--;
    }
  }

  /**
   * The turn's lone reads, in the order they were sent, on the connection held once for all; each
   * has its own answer or error. Reads that may have seen the open group's writes wait for its
   * commit, and fail with it.
   */
  readonly #runReads = async (): Promise<void> => {
    await this.#lock.acquire();
    const reads = this.#reads;
    this.#reads = [];
    const results: ({ ok: QueryResult<unknown> } | { error: unknown })[] = [];
    let committed: Promise<void> | undefined;
    try {
      for (const r of reads) {
        try {
          results.push({ ok: run(this.#write(r.query.sql), r.query.parameters) });
        } catch (error) {
          results.push({ error });
        }
      }
      this.#stats.readBatches++;
      this.#stats.reads += reads.length;
      if (this.#group) committed = this.#member(false);
    } finally {
      this.#lock.release();
    }
    const groupError = await committed?.then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    results.forEach((r, i) => {
      if ('error' in r) reads[i]!.reject(r.error);
      else if (groupError) reads[i]!.reject(groupError.error);
      else reads[i]!.resolve(r.ok);
    });
  };

  async #aloneNow(query: CompiledQuery, kind: StatementKind): Promise<QueryResult<unknown>> {
    await this.#lock.acquire();
    let result: QueryResult<unknown>;
    let committed: Promise<void> | undefined;
    try {
      if (kind === 'pragma' && this.#group) this.#commit(this.#group);
      if (kind === 'write') await this.#join();
      result = run(this.#write(query.sql), query.parameters);
      if (this.#group) committed = this.#member(kind === 'write');
    } finally {
      this.#lock.release();
    }
    await committed;
    return result;
  }

  /**
   * A lone write and then `then`'s statements, made from its result, back to back in the write's
   * group with nothing between them. No savepoint: the first is kept or undone by SQLite alone
   * when it fails; when a later one fails (or `then` throws), the first is already in the group's
   * transaction, so the whole group fails, as when its commit fails: nothing of it was answered
   * yet, and none of it is kept. So `then` gives only statements that cannot fail but for the
   * database's own troubles (a full disk).
   */
  async aloneThen(query: CompiledQuery, then: (result: QueryResult<unknown>) => Then): Promise<QueryResult<unknown>> {
    await this.#startable();
    await this.#lock.acquire();
    let result: QueryResult<unknown>;
    let committed: Promise<void>;
    try {
      await this.#join();
      result = run(this.#write(query.sql), query.parameters);
      try {
        const next = then(result);
        if ('sql' in next) run(this.#write(next.sql), next.parameters);
        else for (const q of next) run(this.#write(q.sql), q.parameters);
      } catch (e) {
        const group = this.#group!;
        if (this.#writer.inTransaction) this.#write('rollback').run();
        this.#fail(group, e);
        throw e;
      }
      committed = this.#member(true);
    } finally {
      this.#lock.release();
    }
    await committed;
    return result;
  }

  #kindOf(sql: string): StatementKind {
    let kind = this.#kinds.get(sql);
    if (kind === undefined) {
      kind = /^\s*pragma\b/i.test(sql) ? 'pragma' : this.#write(sql).readonly ? 'read' : 'write';
      if (this.#kinds.size < 10_000) this.#kinds.set(sql, kind);
    }
    return kind;
  }

  /**
   * Opens the group transaction if none is open; its commit runs once this turn's writes are in.
   * A group whose transaction SQLite already rolled back (on an I/O error, a full disk) fails
   * now: its writes are gone, and a new write must not run outside a transaction, kept by
   * SQLite, while its group's commit would report it failed.
   */
  async #join(): Promise<void> {
    if (this.#group && !this.#writer.inTransaction) this.#fail(this.#group, new Error('SQLite rolled the group transaction back'));
    if (this.#group) return;
    await takeWriteLock(() => this.#write('begin immediate').run());
    const group: Group = { waiting: [] };
    this.#group = group;
    setImmediate(() => void this.#flush(group));
  }

  /** A write that has gone into the open group (or a read that saw it): settles when the group commits or fails. */
  #member(write = true): Promise<void> {
    const group = this.#group!;
    if (write) this.#stats.writes++;
    return new Promise<void>((resolve, reject) => group.waiting.push({ resolve, reject }));
  }

  async #flush(group: Group): Promise<void> {
    await this.#lock.acquire();
    try {
      if (this.#group === group) this.#commit(group);
    } finally {
      this.#lock.release();
    }
  }

  #commit(group: Group): void {
    try {
      this.#write('commit').run();
    } catch (e) {
      if (this.#writer.inTransaction) this.#write('rollback').run();
      this.#fail(group, e);
      return;
    }
    this.#end(group);
    for (const w of group.waiting) w.resolve();
  }

  #fail(group: Group, e: unknown): void {
    this.#end(group);
    for (const w of group.waiting) w.reject(e);
  }

  #end(group: Group): void {
    if (this.#group === group) this.#group = undefined;
    this.#stats.groups++;
  }
}

/** The name is quoted as an identifier. */
const savepointCommand = (command: 'savepoint' | 'rollback to' | 'release', name: string) =>
  CompiledQuery.raw(`${command} "${name.replace(/"/g, '""')}"`);
