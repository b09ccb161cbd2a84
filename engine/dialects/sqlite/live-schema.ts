import { sql } from 'kysely';
import { FIELD_KINDS } from '../../define.ts';
import type { LiveColumn, ReadLiveTable } from '../live-schema.ts';

/** SQLite's catalogue through its table-valued pragmas; indexes made by CREATE INDEX only (not a key's). */
export const readSqliteTable: ReadLiveTable = async (t, table) => {
  const columns = await sql<{
    name: string;
    type: string;
    notnull: number;
  }>`select name, type, "notnull" from pragma_table_info(${table})`.execute(t.db);
  if (columns.rows.length === 0) return undefined;
  const indexes = await sql<{ name: string }>`select name from pragma_index_list(${table}) where origin = 'c'`.execute(t.db);
  const column = ({ name, type, notnull }: { name: string; type: string; notnull: number }): LiveColumn => {
    const declared = type.toLowerCase();
    return { name, type: declared, kinds: FIELD_KINDS.filter((k) => t.flavour.columnType(k) === declared), notNull: notnull === 1 };
  };
  return {
    columns: new Map(columns.rows.map((r) => [r.name, column(r)])),
    indexes: new Set(indexes.rows.map((r) => r.name)),
  };
};
