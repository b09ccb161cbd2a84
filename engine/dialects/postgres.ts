import { sql, type ColumnDataType, type Expression, type RawBuilder } from 'kysely';
import type { FieldKind } from '../define.ts';
import type { Dialect, TenantDb } from './types.ts';
import { dateString, integerNumber, timestampString } from './values.ts';

// Strings use the C collation: code point order, as SQLite's default BINARY.
const TYPES: Record<FieldKind, ColumnDataType | RawBuilder<unknown>> = {
  integer: 'bigint',
  string: sql`text collate "C"`,
  date: 'date',
  timestamp: 'timestamptz',
  boolean: 'boolean',
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  columnType: (kind) => TYPES[kind],
  idColumn: { type: 'bigint', identity: true, autoIncrement: false },
  async columns(t: TenantDb, table: string) {
    const schema = t.schema === undefined ? sql`current_schema()` : sql`${t.schema}`;
    const rows = await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_schema = ${schema} and table_name = ${table}`.execute(t.db);
    return new Set(rows.rows.map((r) => r.column_name));
  },
  encode: (_kind, value) => value,
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    if (kind === 'integer') return integerNumber(value);
    if (kind === 'date') return dateString(value);
    if (kind === 'timestamp') return timestampString(value);
    return value;
  },
  like: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} like ${pattern} escape '\\'`,
  // With the C collation only ASCII letters fold, as with SQLite's LIKE.
  ilike: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} ilike ${pattern} escape '\\'`,
  async lockForMigration(trx, key) {
    await sql`select pg_advisory_xact_lock(hashtext(${`mrs-migrate:${key}`}))`.execute(trx);
  },
  // As on SQLite: an ordered sub-select feeds the aggregate in its order (PostgreSQL 15 would
  // sort again for an aggregate ORDER BY even when an index scan already gives the order).
  concatInOrder: (source, value, orderBy) =>
    sql<string>`(select coalesce(string_agg(v, ''), '') from (${source.select(sql`cast(${value} as text)`.as('v')).orderBy(orderBy as any)}) as s)`,
  toBytes: (text) => sql`convert_to(${text}, 'UTF8')`,
  sliceBytes: (bytes, from, length) => sql`substring(${bytes} from ${from} for ${length})`,
  bytesToText: (bytes) => sql<string>`convert_from(${bytes}, 'UTF8')`,
  chunkSnapshotsIn: 'database',
  opaqueValues: (condition) => condition,
  unloggedTables: true,
  indexesHoldId: false,
  async afterBulkLoad(t, tables) {
    // VACUUM runs outside any transaction: `t.db` must be the pool, not a transaction.
    for (const table of tables) await sql`vacuum (analyze) ${t.schema === undefined ? sql.table(table) : sql.id(t.schema, table)}`.execute(t.db);
  },
};
