import type { FieldDef } from '../define.ts';
import { OPERATOR_RULES, operatorsFor, type Operator } from '../query/operators.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../query/reserved.ts';
import type { Resource } from '../registry.ts';
import { KIND_SCHEMAS, type JsonSchema } from './json-schema.ts';

export type Parameter = Record<string, unknown>;

const NULL_VALUES: JsonSchema = { type: 'string', enum: ['', 'true', 'false'] };

/** The value a filter operator takes on a field: repeatable operators take a list (repeat the parameter). */
function filterValue(f: FieldDef, op: Operator): JsonSchema {
  const one = op === 'null' ? NULL_VALUES : KIND_SCHEMAS[f.kind];
  return OPERATOR_RULES[op].repeat === 'once' ? one : { type: 'array', items: one };
}

const REPEAT_NOTES = {
  'any-of': ' Repeat the parameter to match any of several values.',
  'none-of': ' Repeat the parameter to exclude several values.',
  once: '',
} as const;

function filterParameter(name: string, f: FieldDef, op: Operator, plain: boolean): Parameter {
  const rule = OPERATOR_RULES[op];
  return {
    name: plain ? name : `${name}:${op}`,
    in: 'query',
    required: false,
    description: `Filter: ${name} ${rule.meaning}.${REPEAT_NOTES[rule.repeat]}`,
    schema: filterValue(f, op),
    style: 'form',
    explode: true,
    ...(op === 'null' ? { allowEmptyValue: true } : {}),
  };
}

/**
 * The filters a list documents: `field` (equality) and `field:op` for each operator the field's
 * kind allows, but `:null` only where the field can be null (elsewhere it is accepted and
 * matches nothing or everything, which no one needs to be shown).
 */
export function filterParameters(resource: Resource): Parameter[] {
  return resource.filterable.flatMap((name) => {
    const f = resource.fields[name]!;
    const ops = operatorsFor(f.kind).filter((op) => op !== 'null' || f.nullable === true);
    return [filterParameter(name, f, 'eq', true), ...ops.map((op) => filterParameter(name, f, op, false))];
  });
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const DELETED_PARAMETER: Parameter = {
  name: '$deleted',
  in: 'query',
  required: false,
  description: 'true includes soft-deleted records.',
  schema: { type: 'boolean', default: false },
};

/** `$fields` and `$linked` (SPEC 14), on lists and reads: each a comma-separated list of names. */
export function shapeParameters(resource: Resource): Parameter[] {
  const names = (description: string, values: readonly string[], name: string): Parameter => ({
    name,
    in: 'query',
    required: false,
    description,
    schema: { type: 'array', items: { type: 'string', enum: [...values] }, minItems: 1, uniqueItems: true },
    style: 'form',
    explode: false,
  });
  const linked = [...resource.linked.keys()];
  return [
    names('Only these fields (and id), comma-separated. Part of a cursor: later pages show the same.', resource.fieldNames, '$fields'),
    ...(linked.length
      ? [
          names(
            "Each record gains `linked`: for each name asked, every live record of that child collection, in id order, as the child's list shows it. Needs read on each. Part of a cursor: later pages show the same.",
            linked,
            '$linked',
          ),
        ]
      : []),
  ];
}

/** The `$` parameters of a list. */
export function reservedParameters(resource: Resource): Parameter[] {
  const fields = resource.fieldNames.map(escapeRegex).join('|');
  return [
    DELETED_PARAMETER,
    {
      name: '$orderBy',
      in: 'query',
      required: false,
      description: `One field, as field, field:asc, field:desc, "field asc" or "field desc". Default id ascending; ties by id ascending; empty values sort last ascending. Fields: ${resource.fieldNames.join(', ')}.`,
      schema: { type: 'string', pattern: `^\\s*(${fields})((:|\\s+)(asc|desc))?\\s*$`, examples: ['id', 'created:desc'] },
    },
    {
      name: '$limit',
      in: 'query',
      required: false,
      description: `Page size, fixed when the cursor is made; values over ${MAX_LIMIT} are served as ${MAX_LIMIT}.`,
      schema: { type: 'integer', minimum: 1, default: DEFAULT_LIMIT },
    },
    {
      name: '$page',
      in: 'query',
      required: false,
      description: 'Page number from 1; a page past the last answers [].',
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
    {
      name: '$cursor',
      in: 'query',
      required: false,
      description:
        'A cursor from X-Cursor or Link: serves a page of that snapshot. Filters, $limit, $orderBy, $deleted, $fields and $linked may be repeated only with the values the cursor was made with.',
      schema: { type: 'string', minLength: 1 },
    },
    ...shapeParameters(resource),
  ];
}

export const idParameter = (name: string, of: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description: `The id of a ${of} record.`,
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
});
