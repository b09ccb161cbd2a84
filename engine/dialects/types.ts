import type { ColumnDataType, Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { SnapshotStore } from '../cursor/snapshot-store.ts';
import type { EventLog } from '../events/event-log.ts';
import type { FieldKind } from '../define.ts';
import type { ReadLiveTables } from './live-schema.ts';
import type { TenantState } from '../tenant-state.ts';

/**
 * A tenant's database: a Kysely instance, on PostgreSQL the schema it is bound to, and the parts
 * of the kind of database it is (DatabaseKind).
 */
export interface TenantDb extends DatabaseKind {
  readonly key: string;
  readonly db: Kysely<any>;
  /** PostgreSQL schema the instance is bound to (undefined: the connection's current schema). */
  readonly schema?: string | undefined;
  /** The engine's state of this database, the same for every TenantDb of it (tenantDb()). */
  readonly state: TenantState;
}

/** A field of a record as recordJson writes it: its name, kind and column. */
export interface JsonField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly column: Expression<unknown>;
}

/** The SQL a database writes its own way: column types, values, LIKE and JSON. */
export interface SqlFlavour {
  /** Column type of a field kind; strings must compare by code point. */
  columnType(kind: FieldKind): ColumnDataType | RawBuilder<unknown>;
  /** Type of the auto-assigned id column, and whether it is an identity column. */
  readonly idColumn: { type: ColumnDataType; identity: boolean; autoIncrement: boolean };
  /** A value from the API into its column. */
  encode(kind: FieldKind, value: unknown): unknown;
  /** A column value into the API value. */
  decode(kind: FieldKind, value: unknown): unknown;
  /** Case-sensitive LIKE with `\` as the escape character. */
  like(column: Expression<unknown>, pattern: string): Expression<SqlBool>;
  /** ASCII-case-insensitive LIKE with `\` as the escape character. */
  ilike(column: Expression<unknown>, pattern: string): Expression<SqlBool>;
  /**
   * The concatenation, as text, of `value` over the rows of `source` in the order `orderBy`
   * (`''` when there are none): how a page's records become one JSON text.
   */
  concatInOrder(source: SelectQueryBuilder<any, any, any>, value: Expression<unknown>, orderBy: Expression<unknown>): RawBuilder<string>;
  /**
   * One row as the API shows it (what `decode` gives, field by field), as the text of a JSON
   * object with the fields in the order given: the database writes a page's JSON itself, with no
   * row objects in between (sql/records-json.ts).
   */
  recordJson(fields: readonly JsonField[]): RawBuilder<string>;
  /** A text value as JSON text, as JSON.stringify writes it; `null` for NULL. */
  jsonString(value: Expression<unknown>): RawBuilder<string>;
  /**
   * The ids of a JSON array (a parameter's text) as a table of `id` and `ord`, its position
   * (ascending with the array's order), for joining records to a page's ids in snapshot order.
   */
  idsOfJson(json: Expression<string>): RawBuilder<unknown>;
  /**
   * A row of `alias` (a table or a FROM item over its row) as the text of a JSON object of its
   * `columns`, every value exactly as its column holds it: the row an update replaced, kept with
   * its event (NewEvent.before), which `rowsOfJson` restores.
   */
  rowJson(alias: string, columns: readonly string[]): RawBuilder<string>;
  /**
   * The rows that `rowJson` wrote in column `before_row` of the rows of `source` (a CTE), as a
   * SELECT of `columns` (each as its column of `table` holds it, so conditions and orders over
   * them compare as over the table's own), skipping rows without one.
   */
  rowsOfJson(
    t: TenantDb,
    table: string,
    source: string,
    columns: readonly { readonly name: string; readonly kind: FieldKind | 'id' }[],
  ): RawBuilder<unknown>;
}

/** What a database can do that another cannot, one boolean each: the engine asks these, never which database it is on. */
export interface Supports {
  /**
   * A read in a transaction locks the rows it reads until the transaction ends (SELECT ... FOR
   * UPDATE), so a write's read is what its UPDATE replaces. Not where the transaction's one
   * writer holds the whole database anyway (SQLite).
   */
  readonly rowLocks: boolean;
  /**
   * A statement writes a record and its event (data-modifying CTEs): a write and its event are one
   * statement, atomic without a transaction (EventLog.appendQuery is then not needed).
   */
  readonly eventInStatement: boolean;
  /**
   * Every index entry carries the row's `id`: SQLite's do (the rowid, which `id` is);
   * PostgreSQL's point at the row's place in the table instead, so an index that must give a
   * search its ids without reading rows ends with `id` there (schema/table.ts).
   */
  readonly idInEveryIndex: boolean;
  /**
   * Writes keep the row an update replaced (SqlFlavour.rowJson) only while their collection's lazy-cursor mark is not past
   * (cursor/lazy-mark.ts), which needs every write after a cursor's seq to have seen the mark set
   * before it. SQLite: one writer at a time, and a process's statements run on its one
   * connection in order, so a write either committed before the seq was read or ran after the
   * mark. Not PostgreSQL: a statement whose snapshot was taken before the mark committed can
   * commit after a seq read later; making writes wait for the mark's writer would take a shared
   * lock on one row in every write (a MultiXact each under concurrent writes), so every update
   * keeps its row there, where it costs a PATCH little beside the rest of its statement
   * (BENCHMARKS.md, "Before-rows only while a lazy cursor may need them").
   */
  readonly beforeRowsOnlyWhileMarked: boolean;
}

/** A database's tables as it has them: reading them, creating the engine's, binding a schema, loading in bulk. */
export interface Catalog {
  /** Names of the table's columns; empty when the table does not exist. */
  columns(t: TenantDb, table: string): Promise<Set<string>>;
  /** Tables as the database has them now (columns with their types, indexes), for migration plans. */
  readonly liveTables: ReadLiveTables;
  /** Creates the engine's own tables as this database keeps them (the baseline migration, engine/schema/migrations/). */
  createEngineTables(db: Kysely<any>): Promise<void>;
  /** `db` with its tables in `schema`; throws where the database has no schemas. */
  bindSchema(db: Kysely<any>, schema: string): Kysely<any>;
  /** How a bulk load (`mrs seed`) writes: rows per transaction, and what it runs after. */
  readonly bulkLoad: {
    readonly rowsPerTransaction: number;
    /**
     * Fresh planner statistics after loading these tables. PostgreSQL also vacuums them: that
     * sets the visibility map, without which an index-only scan still reads every row it
     * returns (autovacuum would do the same, some time later).
     */
    after(t: TenantDb, tables: readonly string[]): Promise<void>;
  };
}

/** The locks a database takes for a migration and for an Idempotency-Key. */
export interface Locks {
  /** Serializes schema changes of one tenant across processes, inside the given transaction. */
  forMigration(trx: Kysely<any>, key: string): Promise<void>;
  /**
   * Takes the lock named `key` for the rest of the transaction `trx` without waiting: false when
   * another transaction holds it (an Idempotency-Key in flight in another process). Where one
   * writer holds the whole database for its transaction (SQLite), there is nothing to take: true.
   */
  tryLock(trx: Kysely<any>, key: string): Promise<boolean>;
  /**
   * tryLock as an expression of a statement, held until the statement's own transaction ends:
   * for a write that claims its Idempotency-Key in its own statement (engine/idempotency/).
   * Where tryLock has nothing to take (SQLite): true.
   */
  inStatement(key: unknown): RawBuilder<boolean>;
}

/**
 * Everything that differs between the databases, in parts (databaseOf); the rest of the engine
 * never asks which one it is on.
 */
export interface DatabaseKind {
  readonly flavour: SqlFlavour;
  readonly supports: Supports;
  readonly catalog: Catalog;
  readonly locks: Locks;
  /** Where cursors keep their snapshots (cursor/snapshot-store.ts). */
  readonly snapshots: SnapshotStore;
  /** Where the tenant's change feed is kept (events/event-log.ts). */
  readonly events: EventLog;
}
