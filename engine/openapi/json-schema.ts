import { toJsonSchema } from '@valibot/to-json-schema';
import { NUMBER_DIGITS, type FieldDef, type FieldKind } from '../define.ts';
import type { Resource } from '../registry.ts';
import type { BodyMode } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';

export type JsonSchema = Record<string, unknown>;

/** A value of a field kind as JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export const KIND_SCHEMAS: Record<FieldKind, JsonSchema> = {
  integer: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  number: { type: 'number', description: `Exact to ${NUMBER_DIGITS} significant digits.` },
  string: { type: 'string' },
  date: { type: 'string', format: 'date' },
  timestamp: { type: 'string', format: 'date-time' },
  boolean: { type: 'boolean' },
};

/**
 * What a definition says that the valibot pipes hold only as opaque `check` functions
 * (code-point length, calendar dates, RFC 3339 timestamps) or not at all (the parent link).
 */
function facts(f: FieldDef): JsonSchema {
  return {
    ...KIND_SCHEMAS[f.kind],
    ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
    // SPEC 11: the states as an enum, and the moves between them as `x-states`.
    ...(f.states !== undefined ? { enum: Object.keys(f.states), 'x-states': f.states } : {}),
  };
}

function describe(name: string, f: FieldDef): string | undefined {
  if (f.parent !== undefined) return `Link to the parent ${f.parent} record (its id); it must name a live record.`;
  if (name === 'id') return 'Assigned by the server.';
  if (name === 'created') return 'UTC date the record was created.';
  if (name === 'updated') return 'When the record last changed (RFC 3339, UTC).';
  if (name === 'deleted') return 'Soft-deleted: hidden from lists and reads unless $deleted=true.';
  if (f.states !== undefined) return describeStates(f);
  return undefined;
}

/** The allowed moves, as the docs page shows them (Markdown). */
function describeStates(f: FieldDef): string {
  const states = f.states!;
  const line = (s: string) => {
    const rule = f.enter?.[s];
    const notes = [
      ...(s === f.default ? ['the initial state'] : []),
      ...(rule?.roles ? [`entered only by roles ${rule.roles.map((r) => `\`${r}\``).join(', ')}`] : []),
      ...(rule?.requires ? [`entering needs ${rule.requires.map((r) => `\`${r}\``).join(', ')} set`] : []),
    ];
    const to = states[s]!.length ? states[s]!.map((t) => `\`${t}\``).join(', ') : 'nothing (an end state)';
    return `- \`${s}\` -> ${to}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  };
  return [
    'A state: a record starts in the initial one and moves only as listed (409 otherwise; staying is always allowed). PUT without it keeps the current state.',
    '',
    ...Object.keys(states).map(line),
  ].join('\n');
}

/** One field's value as the API gives it: `null` included when the field is nullable. */
export function valueSchema(name: string, f: FieldDef): JsonSchema {
  const base = facts(f);
  const description = describe(name, f);
  return {
    ...(f.nullable ? { anyOf: [base, { type: 'null' }] } : base),
    ...(description ? { description } : {}),
  };
}

/** A record: every field present, system fields read-only. */
export function recordSchema(resource: Resource): JsonSchema {
  return {
    type: 'object',
    ...(resource.definition.description ? { description: resource.definition.description } : {}),
    properties: Object.fromEntries(
      resource.fieldNames.map((n) => {
        const f = resource.fields[n]!;
        return [n, { ...valueSchema(n, f), ...(f.readOnly ? { readOnly: true } : {}) }];
      }),
    ),
    required: [...resource.fieldNames],
    additionalProperties: false,
  };
}

const MODE_NOTES: Record<BodyMode, string> = {
  create: 'Fields left out take their defaults (null for nullable fields); system fields may not be sent.',
  replace: 'Fields left out are reset to their defaults; system fields may be sent only with their current values.',
  patch: 'Only the fields sent change; system fields may be sent only with their current values.',
};

/**
 * A request body, converted from the very valibot schema that validates it (which fields exist,
 * which are required, defaults, nullability), then given the definition's facts that the
 * converter cannot read out of `check` actions. System fields: absent on create (valibot's
 * `never`), the record's own schema on PUT and PATCH.
 */
export function bodySchema(resource: Resource, mode: BodyMode): JsonSchema {
  const converted = toJsonSchema(schemasOf(resource)[mode], {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  }) as JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };
  const properties: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(converted.properties ?? {})) {
    const f = resource.fields[name];
    if (!f) continue;
    if (f.readOnly) {
      if (mode !== 'create') properties[name] = { ...valueSchema(name, f), description: 'May be sent only with its current value.' };
      continue;
    }
    properties[name] = refine(schema, name, f);
  }
  const required = (converted.required ?? []).filter((n) => n in properties);
  return {
    type: 'object',
    description: MODE_NOTES[mode],
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** The converter's schema of one field with the definition's facts merged into its non-null branch. */
function refine(schema: JsonSchema, name: string, f: FieldDef): JsonSchema {
  const description = describe(name, f);
  const extra = { ...(description ? { description } : {}) };
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (!anyOf) return { ...schema, ...facts(f), ...extra };
  return { ...schema, anyOf: anyOf.map((s) => (s.type === 'null' ? s : { ...s, ...facts(f) })), ...extra };
}
