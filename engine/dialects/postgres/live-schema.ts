import { sql } from 'kysely';
import type { FieldKind } from '../../define.ts';
import { liveTablesOf, type CatalogRow, type ReadLiveTables } from '../live-schema.ts';
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

/**
 * A table's column names from pg_catalog, found by the index on a relation's name and schema:
 * information_schema.columns checks every column of the database, so each tenant's plan grew
 * with the number of tenants (BENCHMARKS.md).
 */
export const tableColumns = (t: TenantDb, table: string) =>
  sql<{ column_name: string }>`select a.attname as column_name
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schemaOf(t)} and c.relname = ${table} and c.relkind in ('r', 'p', 'v', 'f')
      and a.attnum > 0 and not a.attisdropped
    order by a.attnum`.execute(t.db);

/** The tenant schema's catalogue for these tables in one statement: pg_catalog for columns, pg_indexes for indexes. */
export const readPostgresTables: ReadLiveTables = async (t, tables) => {
  if (tables.length === 0) return new Map();
  const names = sql.join(tables.map((name) => sql`${name}`));
  const rows = await sql<CatalogRow>`select c.relname as table_name, false as is_index, a.attname as name, a.attnotnull as not_null,
        format_type(case when ty.typtype = 'd' then ty.typbasetype else a.atttypid end, null) as type, a.attnum as pos
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_type ty on ty.oid = a.atttypid
      where n.nspname = ${schemaOf(t)} and c.relname in (${names}) and c.relkind in ('r', 'p', 'v', 'f')
        and a.attnum > 0 and not a.attisdropped
    union all
    select tablename, true, indexname, false, '', 0 from pg_indexes where schemaname = ${schemaOf(t)} and tablename in (${names})
    order by 1, 2, 6`.execute(t.db);
  return liveTablesOf(rows.rows, (r) => {
    const kind = KIND_OF_TYPE[r.type];
    return { name: r.name, type: r.type, kinds: kind ? [kind] : [], notNull: r.not_null === true };
  });
};
