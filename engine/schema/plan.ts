import type { LiveColumn, LiveTable } from '../dialects/live-schema.ts';
import { questionKey, type CheckedKind, type Question, type TableFacts } from './facts.ts';
import { statesHold } from './states-hold.ts';
import { indexName, type ColumnSpec, type IndexSpec, type TableSpec } from './table.ts';

/** What migrating one resource's table does, or refuses. */
export interface TablePlan {
  readonly resource: string;
  /** No table yet: it is made with every column and index. */
  readonly create: boolean;
  readonly renameColumns: readonly { readonly from: string; readonly to: string }[];
  readonly addColumns: readonly ColumnSpec[];
  readonly addIndexes: readonly IndexSpec[];
  /** Indexes a current one replaces: earlier derived forms, and a renamed column's under its old name. */
  readonly dropIndexes: readonly string[];
  /** Columns no field names: kept, never dropped. */
  readonly keptColumns: readonly string[];
  /** One line each, naming the resource and field. Any refusal in a tenant changes nothing there. */
  readonly refusals: readonly string[];
  /** The refusals the rows' data cause (not a column's type): a migration step may cure them, checked again after it ran. */
  readonly curable: readonly string[];
}

interface Placed {
  readonly column: ColumnSpec;
  /** The live column holding the field's data: its own name, the one it was renamed from, or none. */
  readonly at: string | undefined;
}

function place(spec: TableSpec, live: LiveTable): Placed[] {
  return spec.columns.map((column) => {
    const from = column.rules?.renamedFrom;
    if (live.columns.has(column.name)) return { column, at: column.name };
    if (from !== undefined && live.columns.has(from)) return { column, at: from };
    return { column, at: undefined };
  });
}

const fits = (column: ColumnSpec, live: LiveColumn) => live.kinds.includes(column.kind);

/** Whether the column's type holds other kinds too, and the field's kind has values of a shape to check. */
const sharedType = (column: ColumnSpec, live: LiveColumn): column is ColumnSpec & { kind: CheckedKind } =>
  live.kinds.length > 1 && (column.kind === 'date' || column.kind === 'timestamp' || column.kind === 'boolean');

/** A question about the rows, and why the plan is refused when its answer is yes. */
interface Check {
  readonly question: Question;
  readonly refusal: string;
}

/** What a field's rules ask of the data its column (`at`, of a type that fits) already holds. */
function checksOf(column: ColumnSpec, at: string, held: LiveColumn): Check[] {
  const rules = column.rules;
  if (rules === undefined) return [];
  return [
    ...(sharedType(column, held)
      ? [
          {
            question: { test: 'kind', column: at, kind: column.kind },
            refusal: `kind ${column.kind} does not fit values rows hold in its column ${at}, of type ${held.type}: a changed kind is refused`,
          } as const,
        ]
      : []),
    ...(rules.allowsNull
      ? []
      : [
          {
            question: { test: 'null', column: at },
            refusal: `is ${rules.required ? 'required' : 'not nullable'}, but rows hold null in column ${at}`,
          } as const,
        ]),
    ...(rules.maxLength !== undefined
      ? [
          {
            question: { test: 'longer', column: at, than: rules.maxLength },
            refusal: `maxLength ${rules.maxLength} is below the length of a value rows hold in column ${at}`,
          } as const,
        ]
      : []),
    ...statesHold(column, at),
  ];
}

/** The checks of stored data a table's plan needs: the field's rules on each column whose kind fits. */
export function questionsFor(spec: TableSpec, live: LiveTable | undefined): Question[] {
  if (live === undefined) return [];
  return place(spec, live).flatMap(({ column, at }) => {
    const held = at === undefined ? undefined : live.columns.get(at)!;
    return held === undefined || !fits(column, held) ? [] : checksOf(column, at!, held).map((c) => c.question);
  });
}

/** Definition + live table + facts of its rows -> the plan. Pure: nothing is read or changed here. */
export function planTable(spec: TableSpec, live: LiveTable | undefined, facts: TableFacts): TablePlan {
  if (live === undefined)
    return {
      resource: spec.name,
      create: true,
      renameColumns: [],
      addColumns: spec.columns,
      addIndexes: spec.indexes,
      dropIndexes: [],
      keptColumns: [],
      refusals: [],
      curable: [],
    };
  const placed = place(spec, live);
  const found = placed.flatMap((p) => refusalsOf(spec.name, p, live, facts));
  const refusals = found.map((r) => r.line);
  const renameColumns = placed.flatMap(({ column, at }) => (at !== undefined && at !== column.name ? [{ from: at, to: column.name }] : []));
  const named = new Set(['id', ...spec.columns.map((c) => c.name), ...renameColumns.map((r) => r.from)]);
  // An index of a column renamed now still has the name derived from the old one: it goes, and
  // the new-named one is made.
  const oldName = new Map(renameColumns.map((r) => [r.to, r.from]));
  const renamedIndexes = spec.indexes
    .map((ix) =>
      indexName(
        spec.name,
        ix.columns.map((c) => oldName.get(c) ?? c),
      ),
    )
    .filter((n) => !spec.indexes.some((ix) => ix.name === n));
  return {
    resource: spec.name,
    create: false,
    renameColumns,
    addColumns: placed.filter((p) => p.at === undefined).map((p) => p.column),
    addIndexes: spec.indexes.filter((ix) => !live.indexes.has(ix.name)),
    dropIndexes: [...new Set([...renamedIndexes, ...spec.superseded])].filter((n) => live.indexes.has(n)),
    keptColumns: [...live.columns.keys()].filter((n) => !named.has(n)),
    refusals,
    curable: found.filter((r) => r.curable).map((r) => r.line),
  };
}

interface Refusal {
  readonly line: string;
  readonly curable: boolean;
}

function refusalsOf(resource: string, { column, at }: Placed, live: LiveTable, facts: TableFacts): Refusal[] {
  const line = (why: string) => `resource ${resource}: field ${column.name}: ${why}`;
  if (at === undefined)
    return column.rules?.required && facts.hasRows
      ? [
          {
            line: line(
              'is new and required, but the table has rows (soft-deleted ones count) that would hold null: give it a default, or a migration step that fills it in (mrs migrate:new)',
            ),
            curable: true,
          },
        ]
      : [];
  const held = live.columns.get(at)!;
  if (!fits(column, held))
    return [
      {
        line: line(
          `kind ${column.kind} does not fit its column ${at}, of type ${held.type}${held.kinds.length ? ` (kind ${held.kinds.join(' or ')})` : ''}: a changed kind is refused`,
        ),
        curable: false,
      },
    ];
  return checksOf(column, at, held)
    .filter((c) => facts.yes.has(questionKey(c.question)))
    .map((c) => {
      const found = facts.found?.get(questionKey(c.question));
      return {
        line: line(found?.length ? `${c.refusal}: ${found.map((v) => JSON.stringify(v)).join(', ')}` : c.refusal),
        curable: c.question.test !== 'kind',
      };
    });
}

/** Whether a plan changes nothing. */
export const isEmptyPlan = (p: TablePlan): boolean =>
  !p.create && p.renameColumns.length + p.addColumns.length + p.addIndexes.length + p.dropIndexes.length === 0;
