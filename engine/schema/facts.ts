import { sql, type RawBuilder } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';

/**
 * What a plan asks of the rows a table holds: whether some row holds null in a column, or a
 * value longer than some characters. Each is an EXISTS that stops at the first row found (and
 * looks nulls up in the column's index where it has one).
 */
export type Question =
  | { readonly test: 'null'; readonly column: string }
  | { readonly test: 'longer'; readonly column: string; readonly than: number }
  | { readonly test: 'kind'; readonly column: string; readonly kind: CheckedKind }
  | { readonly test: 'outside'; readonly column: string; readonly values: readonly string[] };

/**
 * Kinds whose values have a shape a column of a shared type can be checked for: where one column
 * type holds several kinds (SQLite: text for strings, dates and timestamps; integer for integers
 * and booleans), a changed kind shows in the values only. Any text is a string and any integer
 * an integer, so a change to those cannot be seen there.
 */
export type CheckedKind = 'date' | 'timestamp' | 'boolean';

/** Values a kind's column never holds, as the engine writes them (a shape, not a full check). */
const FOREIGN: Record<CheckedKind, (column: RawBuilder<unknown>) => RawBuilder<boolean>> = {
  date: (c) => sql<boolean>`${c} not like '____-__-__'`,
  timestamp: (c) => sql<boolean>`${c} not like '____-__-__T__:__:__%'`,
  boolean: (c) => sql<boolean>`${c} not in (0, 1)`,
};

export interface TableFacts {
  /** Whether the table has rows, soft-deleted ones included. */
  readonly hasRows: boolean;
  /** The keys (questionKey) of the questions whose answer is yes. */
  readonly yes: ReadonlySet<string>;
  /** For an `outside` question answered yes: some of the values found, in order, for the refusal to name. */
  readonly found?: ReadonlyMap<string, readonly string[]>;
}

/** How many of the values found outside a list a refusal names. */
const VALUES_NAMED = 5;

const KEYS: { [T in Question['test']]: (q: Extract<Question, { test: T }>) => string } = {
  null: (q) => `${q.column} is null`,
  longer: (q) => `length(${q.column}) > ${q.than}`,
  kind: (q) => `${q.column} holds other than ${q.kind}`,
  outside: (q) => `${q.column} holds other than ${JSON.stringify(q.values)}`,
};

export const questionKey = (q: Question): string => (KEYS[q.test] as (q: Question) => string)(q);

/** The facts of an empty or missing table: nothing to refuse. */
export const NO_ROWS: TableFacts = { hasRows: false, yes: new Set() };

/** One statement answers every question about these tables (each table with its questions). */
export async function readFacts(t: TenantDb, asked: ReadonlyMap<string, readonly Question[]>): Promise<Map<string, TableFacts>> {
  const facts = new Map<string, TableFacts>();
  if (asked.size === 0) return facts;
  const tables = [...asked];
  const probe = (table: string, q?: Question) => {
    const rows = t.db.selectFrom(table).select(sql.lit(1).as('one'));
    if (q === undefined) return rows.limit(1);
    const c = sql`${sql.ref(q.column)}`;
    return rows.where(whereOf(q, c)).limit(1);
  };
  const row = (await t.db
    .selectNoFrom((eb) =>
      tables.flatMap(([table, questions], ti) => [
        eb.exists(probe(table)).as(`h${ti}`),
        ...questions.map((q, qi) => eb.exists(probe(table, q)).as(`q${ti}_${qi}`)),
      ]),
    )
    .executeTakeFirstOrThrow()) as Record<string, unknown>;
  // SQLite answers 0 or 1, PostgreSQL a boolean.
  const yes = (v: unknown) => v === true || v === 1 || v === 1n;
  for (const [ti, [table, questions]] of tables.entries()) {
    const answered = questions.filter((_, qi) => yes(row[`q${ti}_${qi}`]));
    facts.set(table, {
      hasRows: yes(row[`h${ti}`]),
      yes: new Set(answered.map(questionKey)),
      found: await valuesFound(t, table, answered),
    });
  }
  return facts;
}

/** For each `outside` question answered yes, some of the values outside its list, for the refusal to name. */
async function valuesFound(t: TenantDb, table: string, answered: readonly Question[]): Promise<Map<string, readonly string[]>> {
  const found = new Map<string, readonly string[]>();
  for (const q of answered) {
    if (q.test !== 'outside') continue;
    const c = sql`${sql.ref(q.column)}`;
    const values = await t.db
      .selectFrom(table)
      .select(sql<string>`${c}`.as('v'))
      .distinct()
      .where(whereOf(q, c))
      .orderBy('v')
      .limit(VALUES_NAMED)
      .execute();
    found.set(
      questionKey(q),
      values.map((r) => String(r.v)),
    );
  }
  return found;
}

/** The rows a question asks about. length() counts characters of text on both databases. */
function whereOf(q: Question, c: RawBuilder<unknown>): RawBuilder<boolean> {
  switch (q.test) {
    case 'null':
      return sql<boolean>`${c} is null`;
    case 'longer':
      return sql<boolean>`length(${c}) > ${q.than}`;
    case 'kind':
      return FOREIGN[q.kind](c);
    case 'outside':
      return sql<boolean>`${c} is not null and ${c} not in (${sql.join(q.values)})`;
  }
}
