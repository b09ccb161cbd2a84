import { sql, type ColumnDataType, type Expression, type RawBuilder } from 'kysely';
import type { FieldKind } from '../../define.ts';
import { tableRef } from '../table-ref.ts';
import type { DatabaseKind, SqlFlavour, TenantDb } from '../types.ts';
import { postgresEvents } from './event-log.ts';
import { dateString, integerNumber, timestampString } from '../values.ts';
import { inOrder } from './in-order.ts';
import { createPostgresEngineTables } from './engine-tables.ts';
import { postgresSnapshots } from './snapshot-store.ts';
import { readPostgresTables, tableColumns } from './live-schema.ts';

// Strings use the C collation: code point order, as SQLite's default BINARY.
const TYPES: Record<FieldKind, ColumnDataType | RawBuilder<unknown>> = {
  integer: 'bigint',
  // A double holds every decimal of up to 15 significant digits exactly, and compares numerically.
  number: 'float8',
  string: sql`text collate "C"`,
  date: 'date',
  timestamp: 'timestamptz',
  boolean: 'boolean',
};

/**
 * A column's value as JSON text, as `decode` shows it (NULL for NULL). Only text goes through
 * to_json (it escapes); numbers and booleans as their text, dates quoted as to_char writes them
 * (nothing there to escape): each to_json call was a third of a record's JSON (BENCHMARKS.md).
 */
function jsonValue(kind: FieldKind, column: Expression<unknown>): RawBuilder<string> {
  switch (kind) {
    case 'date':
      return sql`'"' || to_char(${column}, 'YYYY-MM-DD') || '"'`;
    case 'timestamp':
      return sql`'"' || to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;
    case 'string':
      return sql`to_json(${column})::text`;
    case 'number':
      // As JSON.stringify writes it: plain from 1e-6 to below 1e21, else an exponent; both from
      // numeric, which keeps a double's 15 significant digits (a stored number's most), where
      // float8's own text may show 17 (5e+22 as 4.9999999999999996e+22).
      return sql`case when ${column} = 0 then '0' when abs(${column}) >= 1e21 or abs(${column}) < 1e-6
        then regexp_replace(regexp_replace(trim(to_char(cast(${column} as numeric), '9.99999999999999EEEE')), '\\.?0+e', 'e'), 'e([+-])0*(\\d)', 'e\\1\\2')
        else cast(cast(${column} as numeric) as text) end`;
    default:
      return sql`cast(${column} as text)`;
  }
}

/** concat() takes at most 100 arguments: longer lists are concatenated in groups, joined by ||. */
const CONCAT_ARGS = 90;

/** The texts concatenated in one expression, with as few intermediate copies as concat() makes. */
function concatAll(parts: readonly RawBuilder<unknown>[]): RawBuilder<string> {
  const groups: RawBuilder<unknown>[] = [];
  for (let i = 0; i < parts.length; i += CONCAT_ARGS) groups.push(sql`concat(${sql.join(parts.slice(i, i + CONCAT_ARGS))})`);
  return sql<string>`(${sql.join(groups, sql` || `)})`;
}

/** An advisory lock named by a text, held to the end of the transaction: true when taken, false when held elsewhere. */
const tryLockOf = (key: unknown) => sql<boolean>`pg_try_advisory_xact_lock(hashtextextended(cast(${key} as text), 0))`;

const flavour: SqlFlavour = {
  columnType: (kind) => TYPES[kind],
  idColumn: { type: 'bigint', identity: true, autoIncrement: false },
  encode: (_kind, value) => value,
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    if (kind === 'integer' || kind === 'number') return integerNumber(value);
    if (kind === 'date') return dateString(value);
    if (kind === 'timestamp') return timestampString(value);
    return value;
  },
  like: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} like ${pattern} escape '\\'`,
  // With the C collation only ASCII letters fold, as with SQLite's LIKE.
  ilike: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} ilike ${pattern} escape '\\'`,
  // As on SQLite: an ordered sub-select feeds the aggregate in its order.
  concatInOrder: (source, value, orderBy) =>
    sql<string>`(select coalesce(string_agg(v, ''), '') from ${inOrder(source, sql`cast(${value} as text)`, orderBy)})`,
  // Concatenated rather than json_build_object, which writes `"name" : value` with spaces: the
  // same text JSON.stringify writes. Dates and timestamps as `decode` gives them.
  jsonString: (value) => sql<string>`coalesce(to_json(cast(${value} as text))::text, 'null')`,
  recordJson: (fields) =>
    concatAll([
      ...fields.flatMap(({ name, kind, column }, i) => [
        sql.lit(`${i === 0 ? '{' : ','}${JSON.stringify(name)}:`),
        sql`coalesce(${jsonValue(kind, column)}, 'null')`,
      ]),
      sql.lit('}'),
    ]),
  // Every column, in its own JSON form: json_populate_record reads each back as its type.
  rowJson: (alias) => sql<string>`row_to_json(${sql.ref(alias)})::text`,
  // The table's row type restores every column with its type and collation.
  rowsOfJson: (t, table, source, columns) =>
    sql`select ${sql.join(columns.map(({ name }) => sql.ref(`r.${name}`)))} from ${sql.table(source)} as f
        cross join lateral json_populate_record(null::${tableRef(t, table)}, cast(f.before_row as json)) as r where f.before_row is not null`,
  idsOfJson: (json) =>
    sql`(select cast(e.value as bigint) as id, e.ord from json_array_elements_text(cast(${json} as json)) with ordinality as e (value, ord))`,
};

export const postgresDatabase: DatabaseKind = {
  flavour,
  supports: {
    rowLocks: true,
    // Data-modifying CTEs: a create is one statement, record and event (its parents looked up by its INSERT).
    eventInStatement: true,
    idInEveryIndex: false,
    beforeRowsOnlyWhileMarked: false,
  },
  catalog: {
    async columns(t: TenantDb, table: string) {
      return new Set((await tableColumns(t, table)).rows.map((r) => r.column_name));
    },
    liveTables: readPostgresTables,
    createEngineTables: createPostgresEngineTables,
    bindSchema: (db, schema) => db.withSchema(schema),
    bulkLoad: {
      rowsPerTransaction: 1000,
      async after(t, tables) {
        // VACUUM runs outside any transaction: `t.db` must be the pool, not a transaction.
        for (const table of tables) await sql`vacuum (analyze) ${tableRef(t, table)}`.execute(t.db);
      },
    },
  },
  locks: {
    async forMigration(trx, key) {
      await sql`select pg_advisory_xact_lock(hashtext(${`mrs-migrate:${key}`}))`.execute(trx);
    },
    async tryLock(trx, key) {
      const { rows } = await sql<{ locked: boolean }>`select ${tryLockOf(key)} as locked`.execute(trx);
      return rows[0]!.locked === true;
    },
    inStatement: (key) => tryLockOf(key),
  },
  events: postgresEvents,
  snapshots: postgresSnapshots,
};
