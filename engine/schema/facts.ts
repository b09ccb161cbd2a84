import { sql } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';

/**
 * What a plan asks of the rows a table holds: whether some row holds null in a column, or a
 * value longer than some characters. Each is an EXISTS that stops at the first row found (and
 * looks nulls up in the column's index where it has one).
 */
export type Question =
  | { readonly test: 'null'; readonly column: string }
  | { readonly test: 'longer'; readonly column: string; readonly than: number };

export interface TableFacts {
  /** Whether the table has rows, soft-deleted ones included. */
  readonly hasRows: boolean;
  /** The keys (questionKey) of the questions whose answer is yes. */
  readonly yes: ReadonlySet<string>;
}

export const questionKey = (q: Question): string => (q.test === 'null' ? `${q.column} is null` : `length(${q.column}) > ${q.than}`);

/** The facts of an empty or missing table: nothing to refuse. */
export const NO_ROWS: TableFacts = { hasRows: false, yes: new Set() };

/** One statement answers every question about one table. */
export async function readFacts(t: TenantDb, table: string, questions: readonly Question[]): Promise<TableFacts> {
  const probe = (q?: Question) => {
    const rows = t.db.selectFrom(table).select(sql.lit(1).as('one'));
    if (q === undefined) return rows.limit(1);
    // length() counts characters of text on both databases.
    const where = q.test === 'null' ? sql<boolean>`${sql.ref(q.column)} is null` : sql<boolean>`length(${sql.ref(q.column)}) > ${q.than}`;
    return rows.where(where).limit(1);
  };
  const row = await t.db
    .selectNoFrom((eb) => [eb.exists(probe()).as('has_rows'), ...questions.map((q, i) => eb.exists(probe(q)).as(`q${i}`))])
    .executeTakeFirstOrThrow();
  // SQLite answers 0 or 1, PostgreSQL a boolean.
  const yes = (v: unknown) => v === true || v === 1 || v === 1n;
  return {
    hasRows: yes(row.has_rows),
    yes: new Set(questions.filter((_, i) => yes((row as Record<string, unknown>)[`q${i}`])).map(questionKey)),
  };
}
