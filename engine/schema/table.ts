import type { FieldDef, FieldKind } from '../define.ts';
import type { Supports } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';

/** What a definition field asks of the data its column already holds (migration plans check it). */
export interface FieldRules {
  readonly required: boolean;
  /** Whether null is a value of the field (readOnly fields the server sets may be null until it does). */
  readonly allowsNull: boolean;
  readonly maxLength?: number;
  readonly renamedFrom?: string;
  /** The values a field with states may hold (SPEC 11). */
  readonly states?: readonly string[];
}

export interface ColumnSpec {
  readonly name: string;
  readonly kind: FieldKind;
  readonly notNull: boolean;
  readonly default?: unknown;
  /** Undefined for the system columns. */
  readonly rules?: FieldRules;
}

export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  /** A partial index of the soft-deleted rows only. */
  readonly deletedOnly?: true;
}

/** A resource's table as the definition implies it. */
export interface TableSpec {
  readonly name: string;
  /** Every column but `id`, in definition order, then the version column. */
  readonly columns: readonly ColumnSpec[];
  readonly indexes: readonly IndexSpec[];
  /** Indexes earlier versions derived that an index of `indexes` now replaces: dropped. */
  readonly superseded: readonly string[];
}

/**
 * The record's version: a system column no field names, so never part of a record; every write
 * advances it (`mrs_version = mrs_version + 1`), and the ETag is made from it (engine/etag.ts).
 * Rows that predate it hold 1.
 */
export const VERSION_COLUMN = 'mrs_version';
const versionColumn: ColumnSpec = { name: VERSION_COLUMN, kind: 'integer', notNull: true, default: 1 };

export const indexName = (table: string, columns: readonly string[]) => `${table}_${columns.join('_')}_idx`;

/**
 * System columns are NOT NULL; field columns are nullable at the database level because the
 * engine validates every write, and a column added to a table with rows must accept them.
 * Fields with a default give it to their column, so rows that predate the column hold it.
 */
export function tableSpec(resource: Resource, supports: Pick<Supports, 'idInEveryIndex'>): TableSpec {
  const columns = resource.fieldNames
    .filter((n) => n !== 'id')
    .map((name): ColumnSpec => {
      const f = resource.fields[name]!;
      const system = !(name in resource.definition.fields);
      return {
        name,
        kind: f.kind,
        notNull: system,
        ...(name === 'deleted' ? { default: false } : f.default !== undefined && f.default !== null ? { default: f.default } : {}),
        ...(system ? {} : { rules: rulesOf(f) }),
      };
    })
    .concat(versionColumn);
  const single = resource.filterable.filter((n) => n !== 'id').map((n) => [n]);
  // A declared query pattern is searched on live records (`deleted = false`) unless $deleted:
  // its index ends with `deleted`, and with `id` where index entries do not carry it already
  // (PostgreSQL), so a live search reads its ids, in id order, and its count from the index
  // alone, never the rows. (`deleted` is not filterable, so no declared pattern names it.)
  // The list without filters, the most common search, is a pattern too on PostgreSQL: its index
  // is the tail alone, the live records in id order (else the ids come from the primary key and
  // every row, or a sort). Not on SQLite: the table itself is in id order, and on a table without
  // statistics SQLite's planner would take an index on `deleted` for filtered searches too (every
  // equality looks alike to it, and that one gives id order for free), scanning every live row.
  const declared = resource.definition.indexes ?? [];
  const tail = supports.idInEveryIndex ? ['deleted'] : ['deleted', 'id'];
  const patterns = [...(supports.idInEveryIndex ? [] : [[]]), ...declared].map((cols) => [...cols, ...tail]);
  const indexes: IndexSpec[] = [...single, ...patterns].map((cols) => ({ name: indexName(resource.name, cols), columns: cols }));
  // SQLite: the deleted rows alone, in id order, for the list of the whole table, whose snapshot
  // is its ends and the deleted rows between (layout.ts, ranged): found by this index, not by a
  // scan of every row. It serves only conditions that name `deleted = 1` literally, so no search
  // is planned on it. PostgreSQL's index of the live list serves both.
  if (supports.idInEveryIndex) indexes.push({ name: indexName(resource.name, ['deleted']), columns: ['deleted'], deletedOnly: true });
  // What earlier versions derived for the same patterns: the bare columns, then (on PostgreSQL)
  // the columns and `deleted`.
  const earlier = (cols: readonly string[]) => (supports.idInEveryIndex ? [[...cols]] : [[...cols], [...cols, 'deleted']]);
  const superseded = declared.flatMap((cols) => earlier(cols).map((c) => indexName(resource.name, c)));
  return { name: resource.name, columns, indexes, superseded };
}

const rulesOf = (f: FieldDef): FieldRules => ({
  required: f.required === true,
  allowsNull: f.nullable === true || (f.readOnly === true && f.default === undefined),
  ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
  ...(f.renamedFrom !== undefined ? { renamedFrom: f.renamedFrom } : {}),
  ...(f.states !== undefined ? { states: Object.keys(f.states) } : {}),
});
