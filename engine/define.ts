/**
 * The resource definition API: a resource is a name plus typed fields. Every type
 * the engine uses for records and bodies is derived from the definition here.
 */
import { UPDATE_RULES } from './writes/rules/index.ts';
import { filesProblems, type FilesOption } from './files/option.ts';

export const FIELD_KINDS = ['integer', 'number', 'string', 'date', 'timestamp', 'boolean'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface KindValue {
  integer: number;
  number: number;
  string: string;
  date: string; // YYYY-MM-DD
  timestamp: string; // RFC 3339, UTC
  boolean: boolean;
}

export interface FieldOptions<K extends FieldKind = FieldKind> {
  /** Must be sent on create and on PUT. */
  required?: boolean;
  /** `null` is a valid value. A nullable field with no default defaults to null. */
  nullable?: boolean;
  /** Used when create or PUT leaves the field out. */
  default?: KindValue[K] | null;
  /** May be used in list filters (and gets an index). */
  filterable?: boolean;
  /** Set by the server only: sent in PUT/PATCH only with its current value. */
  readOnly?: boolean;
  /** Strings only: maximum length in characters. */
  maxLength?: number;
  /** Makes this field the link to a parent record of the named resource. */
  parent?: string;
  /**
   * The field's name before a rename: migrate renames that column to this field's name, keeping
   * its data (a tenant that never had the old column gets the new one directly).
   */
  renamedFrom?: string;
  /**
   * Strings only (SPEC 11): every value the field may hold, each mapped to the values a record may
   * move to from it. The default is the initial state.
   */
  states?: StateMap;
  /** Strings with `states` only: rules for entering a state (who may, which fields must be set). */
  enter?: { readonly [state: string]: EnterRule };
  /** Keeps its value while a string field of the record holds one of these values (engine/writes/rules/frozen.ts). */
  frozenIn?: { readonly [field: string]: readonly string[] };
}

/** A state machine: each state and the states a record may move to from it. */
export type StateMap = { readonly [state: string]: readonly string[] };

/** What entering a state asks: one of these roles, these fields non-null after the move. */
export interface EnterRule {
  readonly roles?: readonly string[];
  readonly requires?: readonly string[];
}

/** Every option a field builder knows: a missing one fails `tsc`, so the start-time check stays whole. */
const FIELD_OPTION_NAMES: Record<keyof FieldOptions | 'kind', true> = {
  kind: true,
  required: true,
  nullable: true,
  default: true,
  filterable: true,
  readOnly: true,
  maxLength: true,
  parent: true,
  renamedFrom: true,
  states: true,
  enter: true,
  frozenIn: true,
};

export interface FieldDef<K extends FieldKind = FieldKind> extends FieldOptions<K> {
  kind: K;
}

/**
 * `O` exactly: a `const` type parameter escapes excess property checks, so an option no builder
 * knows (`maxLenght`) is typed `never` here and fails `tsc`.
 */
type Exact<O, Shape> = O & { [P in Exclude<keyof O, keyof Shape>]: never };

/**
 * With `states`, every state named (a transition's target, the default, an `enter` key) must be
 * a key of `states`: anything else is typed `never` here and fails `tsc`.
 */
type StatesNamed<O> = O extends { states: infer S }
  ? {
      states: { [A in keyof S]: readonly (keyof S & string)[] };
      default?: keyof S & string;
      enter?: { [E in keyof EnterOf<O>]: E extends keyof S ? EnterRule : never };
    }
  : unknown;

type EnterOf<O> = O extends { enter: infer E } ? E : {};

const field =
  <K extends FieldKind>(kind: K) =>
  <const O extends FieldOptions<K>>(options?: Exact<O, FieldOptions<K>> & StatesNamed<O>): FieldDef<K> & O => ({
    ...(options ?? ({} as O)),
    kind,
  });

export const integer = field('integer');
export const number = field('number');
export const string = field('string');
export const date = field('date');
export const timestamp = field('timestamp');
export const boolean = field('boolean');

export type Fields = Record<string, FieldDef>;

export interface ResourceInput<N extends string = string, F extends Fields = Fields> {
  /** Plural collection name: `[a-z][a-z0-9_]*`, also the table name. */
  name: N;
  fields: F;
  description?: string;
  /**
   * Query patterns worth a composite index: each a list of filterable fields searched together
   * (e.g. `[['department_id', 'status']]`). Every filterable field has an index of its own anyway.
   */
  indexes?: readonly (readonly string[])[];
  /** Its records take attached files (SPEC 13): `{}` for any type up to the host's limit. */
  files?: FilesOption;
  /**
   * The path group the collection is served in (SPEC 14): `{base}/{group}/{name}`, or
   * `{base}/{name}` for `''`. Default DEFAULT_GROUP.
   */
  group?: string;
  /** This collection's name in a parent's `$linked` (default: its name's words title-cased, `work_orders` -> `Work Orders`). */
  linkedName?: string;
}

/** The group of a definition that names none: where the shipped collections live. */
export const DEFAULT_GROUP = 'maintenance';

const RESOURCE_OPTION_NAMES: Record<keyof ResourceInput, true> = {
  name: true,
  fields: true,
  description: true,
  indexes: true,
  files: true,
  group: true,
  linkedName: true,
};

/** A definition's group, as it serves it. */
export const groupOf = (d: ResourceInput): string => d.group ?? DEFAULT_GROUP;

/** A collection's name in `$linked`: its own `linkedName`, or its name's words title-cased. */
export const linkedNameOf = (d: ResourceInput): string =>
  d.linkedName ??
  d.name
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

/**
 * A checked, frozen definition. Child collections are not declared here: a resource
 * whose field has `parent: 'x'` is a child collection of `x` (one file adds a child).
 */
export type ResourceDefinition<N extends string = string, F extends Fields = Fields> = Readonly<ResourceInput<N, F>>;

/** Fields the server owns on every record. */
export const SYSTEM_FIELDS = {
  id: { kind: 'integer', filterable: true, readOnly: true },
  created: { kind: 'date', filterable: true, readOnly: true },
  updated: { kind: 'timestamp', readOnly: true },
  deleted: { kind: 'boolean', readOnly: true },
} as const satisfies Fields;

/** The states a field declares, by name (its `StateMap` index signature left out). */
type StateNames<S> = keyof { [K in keyof S as string extends K ? never : K]: true } & string;
type ValueOf<D extends FieldDef> = D extends { states: infer S } ? StateNames<S> : D extends FieldDef<infer K> ? KindValue[K] : never;
type IsNullable<D> = D extends { nullable: true } ? true : false;
type FieldValue<D extends FieldDef> = IsNullable<D> extends true ? ValueOf<D> | null : ValueOf<D>;
type Writable<F extends Fields> = { [K in keyof F as F[K] extends { readOnly: true } ? never : K]: F[K] };
type RequiredKeys<F extends Fields> = { [K in keyof F]: F[K] extends { required: true } ? K : never }[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A record as the API returns it. */
export type RecordOf<R extends ResourceDefinition> = Simplify<
  { id: number; created: string; updated: string; deleted: boolean } & {
    [K in keyof R['fields']]: FieldValue<R['fields'][K]> | (R['fields'][K] extends { required: true } | { states: object } ? never : null);
  }
>;

/** The body of POST: required fields present, the rest optional. */
export type CreateBodyOf<R extends ResourceDefinition> = Simplify<
  { [K in RequiredKeys<Writable<R['fields']>>]: FieldValue<Writable<R['fields']>[K]> } & {
    [K in Exclude<keyof Writable<R['fields']>, RequiredKeys<Writable<R['fields']>>>]?: FieldValue<Writable<R['fields']>[K]>;
  }
>;

/** The body of PUT: like create; missing optional fields are reset to their defaults. */
export type ReplaceBodyOf<R extends ResourceDefinition> = CreateBodyOf<R>;

/** The body of PATCH: any subset of the writable fields. */
export type PatchBodyOf<R extends ResourceDefinition> = Partial<CreateBodyOf<R>>;

/** Declares a collection. Checked once more, with the other resources, by the registry. */
export function defineResource<const N extends string, const F extends Fields>(input: ResourceInput<N, F>): ResourceDefinition<N, F> {
  const problems = checkResource(input);
  if (problems.length > 0) throw new Error(`resource ${input.name}: ${problems[0]}`);
  const fields = Object.freeze(Object.fromEntries(Object.entries(input.fields).map(([k, f]) => [k, Object.freeze({ ...f })]))) as F;
  return Object.freeze({ ...input, fields });
}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** Letters, digits, spaces, `_` and `-`: no comma, which separates names in `$linked`. */
const LINKED_NAME = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,62}$/;

/** Problems with one definition on its own, each naming the field. */
export function checkResource(input: ResourceInput): string[] {
  const problems: string[] = [];
  if (typeof input.name !== 'string' || !NAME.test(input.name)) problems.push(`name must match ${NAME}`);
  else if (input.name.startsWith('mrs_')) problems.push('names starting with mrs_ are reserved for the engine');
  for (const option of unknownKeys(input, RESOURCE_OPTION_NAMES)) problems.push(`option ${option} is not known`);
  if (input.group !== undefined && (typeof input.group !== 'string' || (input.group !== '' && !NAME.test(input.group))))
    problems.push(`group must be '' or match ${NAME}`);
  if (input.linkedName !== undefined && (typeof input.linkedName !== 'string' || !LINKED_NAME.test(input.linkedName)))
    problems.push(`linkedName must match ${LINKED_NAME}`);
  if (typeof input.fields !== 'object' || input.fields === null) return [...problems, 'fields must be an object'];
  for (const columns of input.indexes ?? []) {
    // An unknown field is not a filterable one either: the same line names it.
    const filterable = (n: string) => ((SYSTEM_FIELDS as Fields)[n] ?? input.fields[n])?.filterable === true;
    if (!Array.isArray(columns) || columns.length < 2 || new Set(columns).size !== columns.length)
      problems.push(`indexes: ${JSON.stringify(columns)} must list two or more different fields`);
    else for (const n of columns) if (!filterable(n)) problems.push(`indexes: ${n} is not a filterable field`);
  }
  problems.push(...filesProblems(input.files));
  const renamedFrom = new Set<string>();
  for (const [name, f] of Object.entries(input.fields)) {
    const at = `field ${name}`;
    if (!NAME.test(name)) problems.push(`${at}: name must match ${NAME}`);
    if (name in SYSTEM_FIELDS) problems.push(`${at}: is a system field, present on every record`);
    if (!FIELD_KINDS.includes(f?.kind)) {
      problems.push(`${at}: kind must be one of ${FIELD_KINDS.join(', ')}`);
      continue;
    }
    for (const option of unknownKeys(f, FIELD_OPTION_NAMES)) problems.push(`${at}: option ${option} is not known`);
    if (f.renamedFrom !== undefined) {
      const from = f.renamedFrom;
      if (typeof from !== 'string' || !NAME.test(from) || from in SYSTEM_FIELDS)
        problems.push(`${at}: renamedFrom must name an earlier field`);
      else if (Object.hasOwn(input.fields, from)) problems.push(`${at}: renamedFrom names ${from}, which is still a field`);
      else if (renamedFrom.has(from)) problems.push(`${at}: renamedFrom names ${from}, which another field is renamed from`);
      renamedFrom.add(from);
    }
    if (f.required && f.default !== undefined) problems.push(`${at}: a required field cannot have a default`);
    if (f.default === null && !f.nullable) problems.push(`${at}: default null needs nullable: true`);
    if (!f.required && !f.nullable && f.default === undefined && !f.readOnly)
      problems.push(`${at}: an optional field needs a default or nullable: true`);
    if (f.maxLength !== undefined && (f.kind !== 'string' || !Number.isInteger(f.maxLength) || f.maxLength < 1))
      problems.push(`${at}: maxLength is a positive integer on string fields only`);
    if (f.parent !== undefined && f.kind !== 'integer') problems.push(`${at}: a parent link must be an integer field`);
    if (f.default !== undefined && f.default !== null && !defaultFits(f)) problems.push(`${at}: default does not fit kind ${f.kind}`);
    problems.push(...stateProblems(f, input.fields).map((p) => `${at}: ${p}`));
    for (const rule of UPDATE_RULES) problems.push(...(rule.check?.(name, f, input.fields) ?? []).map((p) => `${at}: ${p}`));
  }
  return problems;
}

/** SPEC 11's rules for `states` and `enter`: every state named is declared, the default is one. */
function stateProblems(f: FieldDef, fields: Fields): string[] {
  if (f.states === undefined) return f.enter === undefined ? [] : ['enter needs states'];
  const states = f.states;
  if (f.kind !== 'string') return ['states are for string fields only'];
  const isStrings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (typeof states !== 'object' || states === null || Array.isArray(states) || Object.keys(states).length === 0)
    return ['states must map each state to the states it may move to'];
  const problems: string[] = [];
  const known = (s: string) => Object.hasOwn(states, s);
  for (const [from, to] of Object.entries(states)) {
    if (!isStrings(to)) problems.push(`states: ${from} must list the states it may move to`);
    else for (const s of to) if (!known(s)) problems.push(`states: ${from} may move to ${s}, which is not a state`);
  }
  if (typeof f.default !== 'string' || !known(f.default)) problems.push('default must be a state (the initial one)');
  if (f.nullable) problems.push('a field with states cannot be nullable');
  for (const [state, rule] of Object.entries(f.enter ?? {})) {
    if (!known(state)) problems.push(`enter: ${state} is not a state`);
    if (typeof rule !== 'object' || rule === null) {
      problems.push(`enter.${state} must be an object with roles and/or requires`);
      continue;
    }
    for (const option of unknownKeys(rule, { roles: true, requires: true })) problems.push(`enter.${state}: option ${option} is not known`);
    if (rule.roles !== undefined && !isStrings(rule.roles)) problems.push(`enter.${state}.roles must be a list of role names`);
    if (rule.requires !== undefined && !isStrings(rule.requires)) problems.push(`enter.${state}.requires must be a list of field names`);
    else
      for (const n of rule.requires ?? [])
        if (!Object.hasOwn(fields, n) && !(n in SYSTEM_FIELDS)) problems.push(`enter.${state}.requires names ${n}, which is not a field`);
  }
  return problems;
}

const unknownKeys = (o: object, known: Record<string, true>) => Object.keys(o).filter((k) => !Object.hasOwn(known, k));

function defaultFits(f: FieldDef): boolean {
  const v = f.default;
  switch (f.kind) {
    case 'integer':
      return Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number' && isExactNumber(v);
    case 'string':
      return typeof v === 'string' && (f.maxLength === undefined || [...v].length <= f.maxLength);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && isDate(v);
    case 'timestamp':
      return typeof v === 'string' && isTimestamp(v);
  }
}

/** A real calendar date in the form YYYY-MM-DD, from year 1 (PostgreSQL has no year 0). */
export function isDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith('0000')) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * An RFC 3339 date-time with a zone, whose UTC instant falls in years 1 to 9999: PostgreSQL has
 * no year 0, and past 9999 an instant has no four-digit year to be written with (toISOString
 * writes `+010000-...`, which PostgreSQL refuses and SQLite would sort out of order).
 */
export function isTimestamp(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(s) || !isDate(s.slice(0, 10))) return false;
  const year = new Date(s).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** Significant digits a `number` field keeps exactly: every decimal of this many survives a double. */
export const NUMBER_DIGITS = 15;

/**
 * A finite number whose shortest decimal form has at most NUMBER_DIGITS significant digits, so
 * that what is stored reads back as the same decimal on both databases; zero or at least 1e-307
 * (below, a double holds fewer digits).
 */
export function isExactNumber(n: number): boolean {
  if (!Number.isFinite(n) || (n !== 0 && Math.abs(n) < 1e-307)) return false;
  const mantissa = Math.abs(n).toExponential().split('e')[0]!.replace('.', '');
  return mantissa.length <= NUMBER_DIGITS;
}
