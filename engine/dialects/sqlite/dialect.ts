import { sql, type Expression, type RawBuilder } from 'kysely';
import type { FieldKind } from '../../define.ts';
import type { DatabaseKind, SqlFlavour, TenantDb } from '../types.ts';
import { sqliteEvents } from './event-log.ts';
import { integerNumber } from '../values.ts';
import { sqliteSnapshots } from './snapshot-store.ts';
import { createSqliteEngineTables } from './engine-tables.ts';
import { readSqliteTables } from './live-schema.ts';

const TYPES: Record<FieldKind, 'integer' | 'real' | 'text'> = {
  integer: 'integer',
  number: 'real',
  string: 'text',
  date: 'text',
  timestamp: 'text',
  boolean: 'integer',
};

/** Column pairs per json_object call: SQLite allows at most 127 arguments to a function by default. */
const JSON_OBJECT_PAIRS = 60;

/** SQLite LIKE ignores ASCII case; GLOB does not, so case-sensitive patterns become GLOB patterns. */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') out += globLiteral(pattern[++i] ?? '');
    else if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else out += globLiteral(ch);
  }
  return out;
}
const ZEROS = '0'.repeat(21);

/**
 * A REAL as JSON.stringify writes the number: printf's %.15g gives its digits exactly (a stored
 * number has at most 15), then the decimal point moves where JavaScript puts it (plain from 1e-6
 * to below 1e21, else d.ddde+x).
 */
function numberJson(column: Expression<unknown>): RawBuilder<string> {
  const plain = sql`case when length(d) - 1 <= e then d || substr(${sql.lit(ZEROS)}, 1, e - length(d) + 1)
    else substr(d, 1, e + 1) || '.' || substr(d, e + 2) end`;
  const exponent = sql`substr(d, 1, 1) || case when length(d) > 1 then '.' || substr(d, 2) else '' end
    || 'e' || case when e < 0 then '-' else '+' end || abs(e)`;
  return sql<string>`(select case when p = 0 then g when e >= 21 or e <= -7 then s || ${exponent}
      when e >= 0 then s || ${plain} else s || '0.' || substr(${sql.lit(ZEROS)}, 1, -e - 1) || d end
    from (select g, p, case when g like '-%' then '-' else '' end as s,
      rtrim(replace(replace(substr(g, 1, p - 1), '-', ''), '.', ''), '0') as d, cast(substr(g, p + 1) as integer) as e
      from (select g, instr(g, 'e') as p from (select printf('%.15g', ${column}) as g))))`;
}

const globLiteral = (ch: string) => (ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch);

const flavour: SqlFlavour = {
  columnType: (kind) => TYPES[kind],
  idColumn: { type: 'integer', identity: false, autoIncrement: true },
  encode(kind, value) {
    if (kind === 'boolean' && typeof value === 'boolean') return value ? 1 : 0;
    return value;
  },
  decode(kind, value) {
    if (value === null || value === undefined) return null;
    if (kind === 'boolean') return value === 1 || value === true || value === 1n;
    if (kind === 'integer' || kind === 'number') return integerNumber(value);
    return value;
  },
  like: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} glob ${likeToGlob(pattern)}`,
  ilike: (column: Expression<unknown>, pattern: string) => sql<boolean>`${column} like ${pattern} escape '\\'`,
  // An aggregate reads an ordered sub-select in its order (SQLite never flattens it into the
  // aggregate), and skips the sort when the scan already yields that order; an aggregate
  // ORDER BY would always sort, doubling the cost of a default (id-ordered) snapshot.
  concatInOrder: (source, value, orderBy) =>
    sql<string>`(select coalesce(group_concat(v, ''), '') from (${source.select(sql`${value}`.as('v')).orderBy(orderBy as any)}) as s)`,
  // json_object writes text, integers and NULL as the API shows them; a boolean is 0 or 1 in its
  // column, so it goes in as JSON (json() of a literal: SQLite computes it once a statement, not a row), NULL as NULL.
  jsonString: (value) => sql<string>`json_quote(${value})`,
  recordJson: (fields) =>
    sql<string>`json_object(${sql.join(
      fields.map(({ name, kind, column }) =>
        kind === 'boolean'
          ? sql`${sql.lit(name)}, case when ${column} is null then null when ${column} = 1 then json('true') else json('false') end`
          : kind === 'number'
            ? sql`${sql.lit(name)}, json(case when ${column} is null then null else ${numberJson(column)} end)`
            : sql`${sql.lit(name)}, ${column}`,
      ),
    )})`,
  // Integers and text, the only types SQLite's columns hold here (TYPES), go through JSON
  // exactly. json_object takes a limited number of arguments: wide rows are merged in parts.
  rowJson: (alias, columns) => {
    const parts = [];
    for (let i = 0; i < columns.length; i += JSON_OBJECT_PAIRS)
      parts.push(
        sql`json_object(${sql.join(columns.slice(i, i + JSON_OBJECT_PAIRS).map((c) => sql`${sql.lit(c)}, ${sql.ref(`${alias}.${c}`)}`))})`,
      );
    return parts.slice(1).reduce((all, part) => sql`json_patch(${all}, ${part})`, parts[0] ?? sql`json_object()`) as RawBuilder<string>;
  },
  // CAST gives each value its column's affinity: a condition compares it as it compares the column.
  rowsOfJson: (_t, _table, source, columns) =>
    sql`select ${sql.join(
      columns.map(
        ({ name, kind }) =>
          sql`cast(json_extract(f.before_row, ${sql.lit(`$.${name}`)}) as ${sql.raw(kind === 'id' ? 'integer' : TYPES[kind])}) as ${sql.ref(name)}`,
      ),
    )} from ${sql.table(source)} as f where f.before_row is not null`,
  // json_each gives the array's elements with their index as `key`.
  idsOfJson: (json) => sql`(select value as id, key as ord from json_each(${json}))`,
};

export const sqliteDatabase: DatabaseKind = {
  flavour,
  supports: {
    rowLocks: false,
    eventInStatement: false,
    idInEveryIndex: true,
    beforeRowsOnlyWhileMarked: true,
  },
  catalog: {
    async columns(t: TenantDb, table: string) {
      const rows = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(t.db);
      return new Set(rows.rows.map((r) => r.name));
    },
    liveTables: readSqliteTables,
    createEngineTables: createSqliteEngineTables,
    bindSchema() {
      throw new Error('tenantDb: a schema is only meaningful on PostgreSQL');
    },
    bulkLoad: {
      rowsPerTransaction: 2000,
      async after(t, tables) {
        for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(t.db);
      },
    },
  },
  locks: {
    // A SQLite write transaction already excludes every other writer of the file.
    forMigration: async () => {},
    tryLock: async () => true,
    inStatement: () => sql<boolean>`1 = 1`,
  },
  events: sqliteEvents,
  snapshots: sqliteSnapshots,
};
