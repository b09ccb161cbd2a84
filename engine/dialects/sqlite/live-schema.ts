import { sql } from 'kysely';
import { FIELD_KINDS } from '../../define.ts';
import { liveTablesOf, type CatalogRow, type ReadLiveTables } from '../live-schema.ts';

/**
 * SQLite's catalogue through its table-valued pragmas, every table asked for in one statement;
 * indexes made by CREATE INDEX only (not a key's).
 */
export const readSqliteTables: ReadLiveTables = async (t, tables) => {
  if (tables.length === 0) return new Map();
  const names = sql.join(tables.map((name) => sql`${name}`));
  const rows =
    await sql<CatalogRow>`select m.name as table_name, 0 as is_index, p.name as name, p.type as type, p."notnull" as not_null, p.cid as pos
      from sqlite_master m join pragma_table_info(m.name) p
      where m.type in ('table', 'view') and m.name in (${names})
    union all
    select m.name, 1, i.name, '', 0, i.seq
      from sqlite_master m join pragma_index_list(m.name) i
      where m.type = 'table' and m.name in (${names}) and i.origin = 'c'
    order by 1, 2, 6`.execute(t.db);
  return liveTablesOf(rows.rows, ({ name, type, not_null }) => {
    const declared = type.toLowerCase();
    return { name, type: declared, kinds: FIELD_KINDS.filter((k) => t.flavour.columnType(k) === declared), notNull: not_null === 1 };
  });
};
