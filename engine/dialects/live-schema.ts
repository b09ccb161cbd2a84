import type { FieldKind } from '../define.ts';
import type { TenantDb } from './types.ts';

/** A column as the database has it now. */
export interface LiveColumn {
  readonly name: string;
  /** Its type as the database names it (for messages). */
  readonly type: string;
  /** The field kinds whose column has this type: on SQLite several kinds share one. */
  readonly kinds: readonly FieldKind[];
  readonly notNull: boolean;
}

/** A table as the database has it now: its columns (id too) and the names of its indexes. */
export interface LiveTable {
  readonly columns: ReadonlyMap<string, LiveColumn>;
  readonly indexes: ReadonlySet<string>;
}

/** Reads these tables of a tenant in one statement; a table there is not is absent from the map. */
export type ReadLiveTables = (t: TenantDb, tables: readonly string[]) => Promise<ReadonlyMap<string, LiveTable>>;

/** One row of a catalogue read: a column (its type and whether it requires a value) or an index of a table. */
export interface CatalogRow {
  readonly table_name: string;
  readonly is_index: boolean | number;
  readonly name: string;
  readonly type: string;
  readonly not_null: boolean | number;
}

/** The tables of catalogue rows ordered by table, columns in their order; a table with no column is absent. */
export function liveTablesOf(rows: readonly CatalogRow[], column: (r: CatalogRow) => LiveColumn): Map<string, LiveTable> {
  const found = new Map<string, { columns: Map<string, LiveColumn>; indexes: Set<string> }>();
  for (const r of rows) {
    let table = found.get(r.table_name);
    if (!table) found.set(r.table_name, (table = { columns: new Map(), indexes: new Set() }));
    if (r.is_index === true || r.is_index === 1) table.indexes.add(r.name);
    else table.columns.set(r.name, column(r));
  }
  for (const [name, table] of found) if (table.columns.size === 0) found.delete(name);
  return found;
}
