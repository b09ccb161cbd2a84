import { sql } from 'kysely';
import type { FieldKind } from '../../define.ts';
import type { LiveColumn, ReadLiveTable } from '../live-schema.ts';
import type { TenantDb } from '../types.ts';

/** information_schema's names of the types postgres.ts gives each kind. */
const KIND_OF_TYPE: Readonly<Record<string, FieldKind>> = {
  bigint: 'integer',
  'double precision': 'number',
  text: 'string',
  date: 'date',
  'timestamp with time zone': 'timestamp',
  boolean: 'boolean',
};

const schemaOf = (t: TenantDb) => (t.schema === undefined ? sql`current_schema()` : sql`${t.schema}`);

/** The tenant schema's catalogue: information_schema for columns, pg_indexes for indexes. */
export const readPostgresTable: ReadLiveTable = async (t, table) => {
  const columns = await sql<{ column_name: string; data_type: string; is_nullable: string }>`
    select column_name, data_type, is_nullable from information_schema.columns
    where table_schema = ${schemaOf(t)} and table_name = ${table} order by ordinal_position`.execute(t.db);
  if (columns.rows.length === 0) return undefined;
  const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = ${schemaOf(t)} and tablename = ${table}`.execute(t.db);
  const column = (r: { column_name: string; data_type: string; is_nullable: string }): LiveColumn => {
    const kind = KIND_OF_TYPE[r.data_type];
    return { name: r.column_name, type: r.data_type, kinds: kind ? [kind] : [], notNull: r.is_nullable === 'NO' };
  };
  return {
    columns: new Map(columns.rows.map((r) => [r.column_name, column(r)])),
    indexes: new Set(indexes.rows.map((r) => r.indexname)),
  };
};
