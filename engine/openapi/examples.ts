import type { FieldDef, FieldKind } from '../define.ts';
import type { Resource } from '../registry.ts';

type Json = Record<string, unknown>;

/** A value of each kind, the field's name making strings tell apart. */
const KIND_EXAMPLES: Record<FieldKind, (name: string) => unknown> = {
  integer: () => 1,
  number: () => 12.5,
  string: (name) => `example ${name.replace(/_/g, ' ')}`,
  date: () => '2024-01-31',
  timestamp: () => '2024-01-31T08:00:00Z',
  boolean: () => false,
};

const SYSTEM_VALUES: Json = { id: 1, created: '2024-01-31', updated: '2024-01-31T08:00:00Z', deleted: false };

function exampleValue(name: string, f: FieldDef): unknown {
  if (f.default !== undefined && f.default !== null) return f.default;
  const value = KIND_EXAMPLES[f.kind](name);
  return typeof value === 'string' && f.maxLength !== undefined ? value.slice(0, f.maxLength) : value;
}

/**
 * A body that creates a record: every writable field but optional parent links (a parent named
 * in an example would have to exist) and the parent link a child path supplies.
 */
export function createExample(resource: Resource, fromPath?: string): Json {
  const keep = (n: string) => n !== fromPath && (resource.fields[n]!.parent === undefined || resource.fields[n]!.required === true);
  return Object.fromEntries(resource.writable.filter(keep).map((n) => [n, exampleValue(n, resource.fields[n]!)]));
}

/** A PATCH body: one field, an optional one when there is one. */
export function patchExample(resource: Resource): Json {
  const names = resource.writable.filter((n) => resource.fields[n]!.parent === undefined);
  const name = names.find((n) => !resource.fields[n]!.required) ?? names[0] ?? resource.writable[0];
  return name === undefined ? {} : { [name]: exampleValue(name, resource.fields[name]!) };
}

/** The record the server answers after storing `body`: system fields, the body, defaults for the rest. */
export function recordExample(resource: Resource, body: Json, parent?: { field: string }): Json {
  const value = (n: string): unknown => {
    if (n in SYSTEM_VALUES) return SYSTEM_VALUES[n];
    if (n in body) return body[n];
    if (parent?.field === n) return 1;
    return resource.fields[n]!.default ?? null;
  };
  return Object.fromEntries(resource.fieldNames.map((n) => [n, value(n)]));
}
