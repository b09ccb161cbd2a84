import type { ColumnDataType, Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { FieldKind } from '../define.ts';
import type { ReadLiveTable } from './live-schema.ts';

/** A tenant's database: a Kysely instance, and on PostgreSQL the schema it is bound to. */
export interface TenantDb {
  readonly key: string;
  readonly db: Kysely<any>;
  readonly dialect: Dialect;
  /** PostgreSQL schema the instance is bound to (undefined: the connection's current schema). */
  readonly schema?: string | undefined;
}

/** A field of a record as recordJson writes it: its name, kind and column. */
export interface JsonField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly column: Expression<unknown>;
}

/**
 * How cursor chunk rows hold their ids. `'application'`: the `ids` column is layout.ts's packed
 * text; one SELECT brings a snapshot's packed text back and the application cuts it into rows
 * (an in-process database, where that costs a string copy and the INSERT is cheaper than
 * slicing in SQL). `'database'`: see DatabaseChunkIds.
 */
export type ChunkIds = { readonly cutIn: 'application' } | DatabaseChunkIds;

/**
 * One INSERT ... SELECT packs a snapshot's ids and cuts them into chunk rows: the ids never leave
 * a server database. The `ids` column holds them as the database packs integers cheapest (each
 * still offset by its width's base, layout.ts), and page reads turn a chunk into the packed text.
 * Positions are 0-based.
 */
export interface DatabaseChunkIds {
  readonly cutIn: 'database';
  /** The type of the `ids` column (migration 006 converts the packed text written before). */
  readonly columnType: RawBuilder<unknown>;
  /** `value` over the rows of `source` in the order `orderBy`, as one value (empty when none). */
  pack(source: SelectQueryBuilder<any, any, any>, value: Expression<unknown>, orderBy: Expression<unknown>): RawBuilder<unknown>;
  /** How many ids a packed value or a chunk holds. */
  count(ids: Expression<unknown>): RawBuilder<number>;
  /** `count` ids from position `from`. */
  slice(ids: Expression<unknown>, from: Expression<unknown>, count: Expression<unknown>): RawBuilder<unknown>;
  /** The (offset) id at position `at`. */
  at(ids: Expression<unknown>, at: Expression<unknown>): RawBuilder<number>;
  /** A chunk as layout.ts's packed text. */
  text(ids: Expression<unknown>): RawBuilder<string>;
  /** Packed text of ids `width` digits each as a column value (in migration 006). */
  fromText(text: Expression<unknown>, width: Expression<unknown>): RawBuilder<unknown>;
}

/** Everything that differs between the databases; the rest of the engine never asks which one it is on. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type of a field kind; strings must compare by code point. */
  columnType(kind: FieldKind): ColumnDataType | RawBuilder<unknown>;
  /** Type of the auto-assigned id column, and whether it is an identity column. */
  readonly idColumn: { type: ColumnDataType; identity: boolean; autoIncrement: boolean };
  /** Names of the table's columns; empty when the table does not exist. */
  columns(t: TenantDb, table: string): Promise<Set<string>>;
  /** A table as the database has it now (columns with their types, indexes), for migration plans. */
  readonly liveTable: ReadLiveTable;
  /** A value from the API into its column. */
  encode(kind: FieldKind, value: unknown): unknown;
  /** A column value into the API value. */
  decode(kind: FieldKind, value: unknown): unknown;
  /** Case-sensitive LIKE with `\` as the escape character. */
  like(column: Expression<unknown>, pattern: string): Expression<SqlBool>;
  /** ASCII-case-insensitive LIKE with `\` as the escape character. */
  ilike(column: Expression<unknown>, pattern: string): Expression<SqlBool>;
  /** Serializes schema changes of one tenant across processes, inside the given transaction. */
  lockForMigration(trx: Kysely<any>, key: string): Promise<void>;
  /**
   * The concatenation, as text, of `value` over the rows of `source` in the order `orderBy`
   * (`''` when there are none): how a cursor packs its ids in one pass.
   */
  concatInOrder(source: SelectQueryBuilder<any, any, any>, value: Expression<unknown>, orderBy: Expression<unknown>): RawBuilder<string>;
  /**
   * The same over the rows of `table` matching `where`, in the order the database reads them:
   * a plain scan of the table when `scan`, else the planner's choice. Where that order is
   * ascending id order more often than not, and cheaper than an ordered sub-select feeding the
   * aggregate; absent elsewhere. The order is not one SQL promises: the caller checks it
   * (store.ts) and packs again in order when it is not ascending.
   */
  concatInIdOrder?(table: string, where: Expression<SqlBool>, value: Expression<unknown>, scan: boolean): RawBuilder<string>;
  /** How a cursor's chunk rows hold their ids, and where a snapshot cuts them (ChunkIds). */
  readonly chunkIds: ChunkIds;
  /**
   * A condition as hot statements write it: a search's snapshot and a cursor's page read. SQLite
   * writes the values it compares with indexed columns as `+?` (sql/opaque-values.ts): built with
   * STAT4, it prepares a statement again before every run when a parameter meets an indexed
   * column that has samples (every column ANALYZE or `PRAGMA optimize` has seen; about 80 us for
   * a snapshot statement, 20 us for a page read, more than running them), and `+?` keeps the plan
   * free of the values, so the cached statement runs as is. PostgreSQL chooses between generic
   * and custom plans itself, and has no unary plus for text: the condition as it is.
   */
  opaqueValues<T>(condition: Expression<T>): Expression<T>;
  /**
   * Whether every index entry carries the row's `id`: SQLite's do (the rowid, which `id` is);
   * PostgreSQL's point at the row's place in the table instead, so an index that must give a
   * search its ids without reading rows ends with `id` there (schema/table.ts).
   */
  readonly indexesHoldId: boolean;
  /**
   * Fresh planner statistics after a bulk load of these tables (`mrs seed`). PostgreSQL also
   * vacuums them: that sets the visibility map, without which an index-only scan still reads
   * every row it returns (autovacuum would do the same, some time later).
   */
  afterBulkLoad(t: TenantDb, tables: readonly string[]): Promise<void>;
  /**
   * One row as the API shows it (what `decode` gives, field by field), as the text of a JSON
   * object with the fields in the order given: the database writes a page's JSON itself, with no
   * row objects in between (sql/records-json.ts).
   */
  recordJson(fields: readonly JsonField[]): RawBuilder<string>;
  /**
   * The ids of a JSON array (a parameter's text) as a table of `id` and `ord`, its position
   * (ascending with the array's order), for joining records to a page's ids in snapshot order.
   */
  idsOfJson(json: Expression<string>): RawBuilder<unknown>;
  /** Whether tables of throwaway data (cursors) may skip the write-ahead log. */
  readonly unloggedTables: boolean;
  /**
   * Whether the database compresses a row's long values once the row passes about 2 KB
   * (PostgreSQL's TOAST). Cursor chunk rows sit just past it, and are written and read whole.
   */
  readonly compressesLongRows: boolean;
}
