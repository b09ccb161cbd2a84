import { sql, type RawBuilder } from 'kysely';
import type { SqlFlavour, TenantDb } from '../dialects/types.ts';
import type { Stored } from '../records.ts';
import type { Resource } from '../registry.ts';
import { VERSION_COLUMN } from '../schema/table.ts';
import { tableRef } from '../dialects/table-ref.ts';

/** What a condition's SQL takes of the tenant's database: its schema and SQL flavour. */
type InSchema = Pick<TenantDb, 'schema' | 'flavour'>;

/** A value a condition compares a string, integer or boolean field with. */
export type Scalar = string | number | boolean;

/**
 * What a row must hold for a write to be written, as data: each rule (engine/writes/rules/)
 * states its check as conditions, and both forms are derived here: `holds` judges a record read
 * (JavaScript), `conditionSql` makes the WHERE of a statement that writes without reading first.
 * test/writes/row-conditions.test.ts holds the two to agreeing on random rows on each database.
 */
export type RowCondition =
  /** The field (string, integer or boolean) is this value. */
  | { readonly is: 'eq'; readonly field: string; readonly value: Scalar }
  /** The field (string, integer or boolean) is one of these values. */
  | { readonly is: 'in'; readonly field: string; readonly values: readonly Scalar[] }
  /** The field is not null. */
  | { readonly is: 'set'; readonly field: string }
  /** These fields, as the record's JSON shows them, are this JSON text (showsJson). */
  | { readonly is: 'shows'; readonly fields: readonly string[]; readonly json: string }
  /** The row is at this version (its ETag's). */
  | { readonly is: 'version'; readonly value: number }
  /** A live record of `table` has this id: a fact of the database, which a record read looks up (factsFor). */
  | { readonly is: 'live'; readonly table: string; readonly id: number }
  | { readonly is: 'not'; readonly of: RowCondition }
  /** Every one holds (none: true) or some one holds (none: false). */
  | { readonly is: 'all' | 'any'; readonly of: readonly RowCondition[] };

export const all = (of: readonly RowCondition[]): RowCondition => (of.length === 1 ? of[0]! : { is: 'all', of });
export const any = (of: readonly RowCondition[]): RowCondition => (of.length === 1 ? of[0]! : { is: 'any', of });
/** A condition no row holds: a write that must be left to its read, which says why. */
export const NEVER: RowCondition = { is: 'any', of: [] };

/**
 * Fields of a record or body as the record's JSON shows them, in the order given; undefined
 * when a value is an object or array, whose JSON text could equal a record's when it is no
 * value of the record's (`===` is what a record read compares).
 */
export function showsJson(values: Readonly<Record<string, unknown>>, fields: readonly string[]): string | undefined {
  let json = '{';
  for (const [i, name] of fields.entries()) {
    const value = values[name];
    if (value !== null && typeof value === 'object') return undefined;
    json += `${i === 0 ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return `${json}}`;
}

/** What a record read does not tell: whether the records a condition names are live (factsFor). */
export interface Facts {
  readonly live: (table: string, id: number) => boolean;
}

const NO_FACTS: Facts = {
  live: (table, id) => {
    throw new Error(`${table} ${id} was not looked up: factsFor gives what a condition names`);
  },
};

/** Whether a record read holds the condition: the JavaScript form, with the facts looked up beside the read. */
export function holds(c: RowCondition, stored: Stored, facts: Facts = NO_FACTS): boolean {
  const { record } = stored;
  switch (c.is) {
    case 'eq':
      return record[c.field] === c.value;
    case 'in':
      return c.values.includes(record[c.field] as Scalar);
    case 'set':
      return record[c.field] !== null && record[c.field] !== undefined;
    case 'shows':
      return showsJson(record, c.fields) === c.json;
    case 'version':
      return stored.version === c.value;
    case 'live':
      return facts.live(c.table, c.id);
    case 'not':
      return !holds(c.of, stored, facts);
    case 'all':
      return c.of.every((o) => holds(o, stored, facts));
    case 'any':
      // The branches that need no facts first: where one holds, factsFor looked up none.
      return c.of.some((o) => !namesRecords(o) && holds(o, stored, facts)) || c.of.some((o) => namesRecords(o) && holds(o, stored, facts));
  }
}

/**
 * The facts `holds` needs to judge these conditions on a record read: each record named looked
 * up once, none where a branch that needs no lookup already decides (a link that keeps the
 * record's value names no parent to look up). No record (a create): every record named.
 */
export async function factsFor(
  conditions: readonly RowCondition[],
  stored: Stored | undefined,
  isLive: (table: string, id: number) => Promise<boolean>,
): Promise<Facts> {
  const named: { table: string; id: number }[] = [];
  const collect = (c: RowCondition): void => {
    if (c.is === 'live') named.push(c);
    else if (c.is === 'not') collect(c.of);
    else if (c.is === 'all' || (c.is === 'any' && !(stored && c.of.some((o) => !namesRecords(o) && holds(o, stored)))))
      c.of.forEach(collect);
  };
  conditions.forEach(collect);
  if (named.length === 0) return NO_FACTS;
  const live = new Map<string, boolean>();
  for (const { table, id } of named) {
    const key = JSON.stringify([table, id]);
    if (!live.has(key)) live.set(key, await isLive(table, id));
  }
  return { live: (table, id) => live.get(JSON.stringify([table, id])) ?? NO_FACTS.live(table, id) };
}

const namesRecords = (c: RowCondition): boolean =>
  c.is === 'live' || (c.is === 'not' ? namesRecords(c.of) : c.is === 'all' || c.is === 'any' ? c.of.some(namesRecords) : false);

/** What decides a condition's SQL (its values left out): part of a compiled statement's key. */
export function conditionShape(c: RowCondition): string {
  switch (c.is) {
    case 'eq':
    case 'set':
      return `${c.is}(${c.field})`;
    case 'in':
      return `in(${c.field},${c.values.length})`;
    case 'shows':
      return `shows(${c.fields.join(',')})`;
    case 'version':
      return 'version';
    case 'live':
      return `live(${c.table})`;
    case 'not':
      return `not(${conditionShape(c.of)})`;
    case 'all':
    case 'any':
      return `${c.is}(${c.of.map(conditionShape).join(',')})`;
  }
}

/**
 * The condition with its values left out (each a zero, a list as long): what decides its SQL,
 * the part of a compiled statement's shape (engine/compiled-queries.ts) conditionSql builds from.
 */
export function conditionTemplate(c: RowCondition): RowCondition {
  switch (c.is) {
    case 'eq':
      return { is: 'eq', field: c.field, value: 0 };
    case 'in':
      return { is: 'in', field: c.field, values: c.values.map(() => 0) };
    case 'shows':
      return { is: 'shows', fields: c.fields, json: '' };
    case 'version':
      return { is: 'version', value: 0 };
    case 'live':
      return { is: 'live', table: c.table, id: 0 };
    case 'not':
      return { is: 'not', of: conditionTemplate(c.of) };
    case 'all':
    case 'any':
      return { is: c.is, of: c.of.map(conditionTemplate) };
    case 'set':
      return c;
  }
}

/** A condition's values as the statement's parameters, encoded for their columns, in the order conditionSql takes them. */
export function conditionValues(c: RowCondition, resource: Resource, flavour: SqlFlavour, out: unknown[] = []): unknown[] {
  const encoded = (field: string, v: Scalar) => flavour.encode(resource.fields[field]!.kind, v);
  switch (c.is) {
    case 'eq':
      out.push(encoded(c.field, c.value));
      break;
    case 'in':
      for (const v of c.values) out.push(encoded(c.field, v));
      break;
    case 'shows':
      out.push(c.json);
      break;
    case 'version':
      out.push(c.value);
      break;
    case 'live':
      out.push(c.id);
      break;
    case 'not':
      conditionValues(c.of, resource, flavour, out);
      break;
    case 'all':
    case 'any':
      for (const o of c.of) conditionValues(o, resource, flavour, out);
      break;
    case 'set':
  }
  return out;
}

/**
 * The condition as SQL on the row (its columns unqualified), never null, so `not` is the
 * JavaScript form's. `next` gives the parameter of each value, in conditionValues' order: a
 * compiled statement's placeholders, or the values themselves.
 */
export function conditionSql(t: InSchema, resource: Resource, c: RowCondition, next: () => unknown): RawBuilder<boolean> {
  switch (c.is) {
    case 'eq':
      return sql<boolean>`coalesce(${sql.ref(c.field)} = ${next()}, false)`;
    case 'in':
      return c.values.length === 0
        ? sql<boolean>`1 = 0`
        : sql<boolean>`coalesce(${sql.ref(c.field)} in (${sql.join(c.values.map(() => next()))}), false)`;
    case 'set':
      return sql<boolean>`${sql.ref(c.field)} is not null`;
    case 'shows': {
      const fields = c.fields.map((name) => ({ name, kind: resource.fields[name]!.kind, column: sql.ref(name) }));
      return sql<boolean>`coalesce(${t.flavour.recordJson(fields)} = cast(${next()} as text), false)`;
    }
    case 'version':
      return sql<boolean>`${sql.ref(VERSION_COLUMN)} = ${next()}`;
    case 'live':
      return liveRecord(t, c.table, next());
    case 'not':
      return sql<boolean>`not (${conditionSql(t, resource, c.of, next)})`;
    case 'all':
    case 'any':
      if (c.of.length === 0) return c.is === 'all' ? sql<boolean>`1 = 1` : sql<boolean>`1 = 0`;
      return sql<boolean>`(${sql.join(
        c.of.map((o) => conditionSql(t, resource, o, next)),
        c.is === 'all' ? sql` and ` : sql` or `,
      )})`;
  }
}

/** A live record of `table` has this id. */
const liveRecord = (t: InSchema, table: string, id: unknown) =>
  sql<boolean>`exists (select 1 from ${tableRef(t, table)} where id = ${id} and deleted = false)`;
