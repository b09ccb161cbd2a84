import * as v from 'valibot';
import { isDate, isExactNumber, isTimestamp, NUMBER_DIGITS, type FieldDef, type FieldKind } from '../define.ts';
import { isStorableText, UNSTORABLE_MESSAGE } from '../storable-text.ts';

type Schema = v.GenericSchema<unknown, unknown>;

const TYPE_MESSAGES: Record<FieldKind, string> = {
  integer: 'must be an integer',
  number: `must be a number with at most ${NUMBER_DIGITS} significant digits, 0 or from 1e-307 to 1e308 in size`,
  string: 'must be a string',
  date: 'must be a date in the form YYYY-MM-DD',
  timestamp: 'must be an RFC 3339 date-time with a zone, in UTC years 1 to 9999, e.g. 2024-01-31T08:00:00Z',
  boolean: 'must be true or false',
};

const message = (kind: FieldKind) => (issue: v.BaseIssue<unknown>) => (issue.input === null ? 'must not be null' : TYPE_MESSAGES[kind]);

const KIND_SCHEMAS: Record<FieldKind, (f: FieldDef) => Schema> = {
  integer: () => v.pipe(v.number(message('integer')), v.safeInteger(TYPE_MESSAGES.integer)) as Schema,
  // Zero's sign is dropped: JSON and both databases would each write -0 their own way.
  number: () =>
    v.pipe(
      v.number(message('number')),
      v.check(isExactNumber, TYPE_MESSAGES.number),
      v.transform((n) => (n === 0 ? 0 : n)),
    ) as Schema,
  string: (f) =>
    v.pipe(
      v.string(message('string')),
      v.check(isStorableText, UNSTORABLE_MESSAGE),
      v.check((s) => f.maxLength === undefined || [...s].length <= f.maxLength, `must be at most ${f.maxLength} characters`),
      v.check(
        (s) => f.states === undefined || Object.hasOwn(f.states, s),
        `must be one of the states ${Object.keys(f.states ?? {}).join(', ')}`,
      ),
    ) as Schema,
  date: () => v.pipe(v.string(message('date')), v.check(isDate, TYPE_MESSAGES.date)) as Schema,
  timestamp: () =>
    v.pipe(
      v.string(message('timestamp')),
      v.check(isTimestamp, TYPE_MESSAGES.timestamp),
      v.transform((s) => new Date(s).toISOString()),
    ) as Schema,
  boolean: () => v.boolean(message('boolean')),
};

/** The schema of one field's value, `null` included when the field is nullable. */
export function fieldSchema(f: FieldDef): Schema {
  const base = KIND_SCHEMAS[f.kind](f);
  return f.nullable ? (v.nullable(base) as Schema) : base;
}

/** The default a create or PUT gives a field that was left out. */
export const defaultOf = (f: FieldDef): unknown => (f.default !== undefined ? f.default : null);
