import type { FieldKind } from '../define.ts';
import type { Resource } from '../registry.ts';

/** A resource's table as the definition implies it. */
export interface TableSpec {
  readonly name: string;
  /** Every column but `id`, in definition order. */
  readonly columns: readonly { name: string; kind: FieldKind; notNull: boolean; default?: unknown }[];
  readonly indexes: readonly { name: string; columns: readonly string[] }[];
}

/**
 * System columns are NOT NULL; field columns are nullable at the database level because the
 * engine validates every write, and a column added to a table with rows must accept them.
 * Fields with a default give it to their column, so rows that predate the column hold it.
 */
export function tableSpec(resource: Resource): TableSpec {
  const columns = resource.fieldNames
    .filter((n) => n !== 'id')
    .map((name) => {
      const f = resource.fields[name]!;
      const system = !(name in resource.definition.fields);
      return {
        name,
        kind: f.kind,
        notNull: system,
        ...(name === 'deleted' ? { default: false } : f.default !== undefined && f.default !== null ? { default: f.default } : {}),
      };
    });
  const single = resource.filterable.filter((n) => n !== 'id').map((n) => [n]);
  const indexes = [...single, ...(resource.definition.indexes ?? [])].map((columns) => ({
    name: `${resource.name}_${columns.join('_')}_idx`,
    columns,
  }));
  return { name: resource.name, columns, indexes };
}
