import type { TenantDb } from '../dialects/types.ts';
import type { Registry } from '../registry.ts';
import { tableSpec, type TableSpec } from './table.ts';

/**
 * Brings every resource table up to its definition: creates missing tables, adds missing
 * columns (existing rows keep their data) and missing indexes, and drops the indexes an earlier
 * version derived that a current one replaces (table.ts). Safe to run at every start.
 */
export async function migrateResources(t: TenantDb, registry: Registry): Promise<void> {
  for (const resource of registry.resources.values()) await migrateTable(t, tableSpec(resource, t.dialect));
}

async function migrateTable(t: TenantDb, spec: TableSpec): Promise<void> {
  const { db, dialect } = t;
  const existing = await dialect.columns(t, spec.name);
  const columnDef = (c: TableSpec['columns'][number]) => (col: any) => {
    let b = c.notNull ? col.notNull() : col;
    if (c.default !== undefined) b = b.defaultTo(dialect.encode(c.kind, c.default));
    return b;
  };
  if (existing.size === 0) {
    let create = db.schema.createTable(spec.name).ifNotExists().addColumn('id', dialect.idColumn.type, (col) => {
      let b = col.primaryKey();
      if (dialect.idColumn.identity) b = b.generatedByDefaultAsIdentity();
      if (dialect.idColumn.autoIncrement) b = b.autoIncrement();
      return b;
    });
    for (const c of spec.columns) create = create.addColumn(c.name, dialect.columnType(c.kind), columnDef(c));
    await create.execute();
  } else {
    for (const c of spec.columns) {
      if (existing.has(c.name)) continue;
      await db.schema.alterTable(spec.name).addColumn(c.name, dialect.columnType(c.kind), columnDef(c)).execute();
    }
  }
  for (const ix of spec.indexes) {
    await db.schema.createIndex(ix.name).ifNotExists().on(spec.name).columns([...ix.columns]).execute();
  }
  // Only after their replacements exist, so searches always have an index.
  for (const name of spec.superseded) await db.schema.dropIndex(name).ifExists().execute();
}
