import { sql } from 'kysely';
import type { FieldKind } from '../../define.ts';
import type { LiveColumn, ReadLiveTable } from '../live-schema.ts';
import type { TenantDb } from '../types.ts';

/** PostgreSQL's names (format_type) of the types postgres.ts gives each kind. */
const KIND_OF_TYPE: Readonly<Record<string, FieldKind>> = {
  bigint: 'integer',
  'double precision': 'number',
  text: 'string',
  date: 'date',
  'timestamp with time zone': 'timestamp',
  boolean: 'boolean',
};

const schemaOf = (t: TenantDb) => (t.schema === undefined ? sql`current_schema()` : sql`${t.schema}`);

interface ColumnRow {
  column_name: string;
  data_type: string;
  not_null: boolean;
}

/**
 * A table's columns from pg_catalog, found by the index on a relation's name and schema:
 * information_schema.columns checks every column of the database, so each tenant's plan grew
 * with the number of tenants (BENCHMARKS.md).
 */
export const tableColumns = (t: TenantDb, table: string, typed: boolean) =>
  sql<ColumnRow>`select a.attname as column_name, a.attnotnull as not_null,
      ${typed ? sql`format_type(case when ty.typtype = 'd' then ty.typbasetype else a.atttypid end, null)` : sql`''`} as data_type
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_type ty on ty.oid = a.atttypid
    where n.nspname = ${schemaOf(t)} and c.relname = ${table} and c.relkind in ('r', 'p', 'v', 'f')
      and a.attnum > 0 and not a.attisdropped
    order by a.attnum`.execute(t.db);

/** The tenant schema's catalogue: pg_catalog for columns, pg_indexes for indexes. */
export const readPostgresTable: ReadLiveTable = async (t, table) => {
  const columns = await tableColumns(t, table, true);
  if (columns.rows.length === 0) return undefined;
  const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = ${schemaOf(t)} and tablename = ${table}`.execute(t.db);
  const column = (r: ColumnRow): LiveColumn => {
    const kind = KIND_OF_TYPE[r.data_type];
    return { name: r.column_name, type: r.data_type, kinds: kind ? [kind] : [], notNull: r.not_null };
  };
  return {
    columns: new Map(columns.rows.map((r) => [r.column_name, column(r)])),
    indexes: new Set(indexes.rows.map((r) => r.indexname)),
  };
};
