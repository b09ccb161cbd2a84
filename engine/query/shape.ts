import type { Resource } from '../registry.ts';

/**
 * `$fields` and `$linked` (SPEC 14): what of a record an answer shows. Pure: names in, names or
 * a message out; the SQL that writes the shaped JSON is engine/sql/record-shape.ts.
 */
export interface ShapeNames {
  /** Only these fields (and `id`), in the resource's column order; undefined: every field. */
  readonly fields?: readonly string[] | undefined;
  /** `$linked` names as asked, verbatim, each once; undefined: none. */
  readonly linked?: readonly string[] | undefined;
}

type Parsed = { ok: true; names: string[] } | { ok: false; message: string };

const listOf = (value: string) => value.split(',').map((s) => s.trim());

/** `$fields=a,b`: known fields only, returned in column order. */
export function parseFields(value: string, resource: Resource): Parsed {
  const asked = listOf(value);
  const unknown = asked.filter((n) => !Object.hasOwn(resource.fields, n));
  if (value === '' || unknown.length)
    return {
      ok: false,
      message: `$fields takes a comma-separated list of fields${unknown.length ? ` (not fields: ${unknown.join(', ')})` : ''}; fields: ${resource.fieldNames.join(', ')}`,
    };
  return { ok: true, names: resource.fieldNames.filter((n) => asked.includes(n)) };
}

/** `$linked=Notes,Files`: names of the resource's child collections (registry.ts `linked`), each once, in the order asked. */
export function parseLinked(value: string, resource: Resource): Parsed {
  const asked = [...new Set(listOf(value))];
  const unknown = asked.filter((n) => !resource.linked.has(n));
  if (value === '' || unknown.length) {
    const allowed = [...resource.linked.keys()];
    return {
      ok: false,
      message: `${unknown.length ? `not a linked name here: ${unknown.join(', ')}; ` : ''}${
        allowed.length ? `$linked takes a comma-separated list of: ${allowed.join(', ')}` : `${resource.name} has no linked collections`
      }`,
    };
  }
  return { ok: true, names: asked };
}

/** The names' canonical form for comparing two requests of one cursor: order does not matter. */
export const sameNames = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  JSON.stringify(a === undefined ? undefined : [...a].sort()) === JSON.stringify(b === undefined ? undefined : [...b].sort());

type Problem = { parameter: string; message: string };

/** `$fields` and `$linked` of a read (a record path takes no other `$` parameter but `$deleted`). */
export function resolveShapeParams(params: URLSearchParams, resource: Resource, problems: Problem[]): ShapeNames {
  const names: { fields?: string[]; linked?: string[] } = {};
  for (const [param, parse, key] of [
    ['$fields', parseFields, 'fields'],
    ['$linked', parseLinked, 'linked'],
  ] as const) {
    const values = params.getAll(param);
    if (values.length === 0) continue;
    if (values.length > 1) {
      problems.push({ parameter: param, message: `${param} may be given once` });
      continue;
    }
    const r = parse(values[0]!, resource);
    if (r.ok) names[key] = r.names;
    else problems.push({ parameter: param, message: r.message });
  }
  return names;
}

/** The child collections a request's `$linked` names (known names only; the rest are the query's 400). */
export function linkedCollections(params: URLSearchParams, resource: Resource): string[] {
  return linkedCollectionsOf(params.getAll('$linked').flatMap(listOf), resource);
}

/** The child collections of `$linked` names (known names only). */
export const linkedCollectionsOf = (names: readonly string[], resource: Resource): string[] =>
  names.flatMap((n) => resource.linked.get(n) ?? []);
