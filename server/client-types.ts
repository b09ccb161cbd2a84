import type { FieldDef, ResourceDefinition } from '../engine/define.ts';
import { operatorsFor } from '../engine/query/operators.ts';
import { createRegistry, type Registry, type Resource } from '../engine/registry.ts';

/**
 * The TypeScript types of a deployment's collections for the client (`mrs client generate`),
 * derived from the definitions as the engine places them: a changed definition changes them,
 * and a consumer's type check then fails where it no longer fits.
 */
export function clientTypes(definitions: readonly ResourceDefinition[], from = 'maintenance-records/client'): string {
  const registry = createRegistry(definitions);
  const resources = [...registry.resources.values()].filter((r) => !r.underParents);
  const out = [
    "// The types of this deployment's collections, written by `mrs client generate` from its definitions:",
    '// run it again after a definition changes. Use: createClient<Collections>({ baseUrl, apiKey, paths }).',
    `import type { Json } from '${from}';`,
    '',
    'type Many<T extends Json> = T | readonly T[];',
  ];
  for (const r of resources) out.push('', ...collectionTypes(r, registry));
  out.push(
    '',
    '/** Every collection by name, for createClient<Collections>(). */',
    'export type Collections = {',
    ...resources.map((r) => `  ${r.name}: ${typeName(r.name)};`),
    '};',
    '',
    "/** Each collection's path under the base URL, for createClient({ paths }). */",
    'export const paths = {',
    ...resources.map((r) => `  ${r.name}: '${r.path.slice(1)}',`),
    '} as const;',
    '',
  );
  return out.join('\n');
}

const typeName = (name: string) => name.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : literal(s));

/** A field's value: its states as a union, else its kind's type. */
function valueType(f: FieldDef): string {
  if (f.states) return Object.keys(f.states).map(literal).join(' | ');
  return { integer: 'number', number: 'number', string: 'string', date: 'string', timestamp: 'string', boolean: 'boolean' }[f.kind];
}

/** As the engine's RecordOf: null where the field is nullable, or neither required nor a state. */
function recordValue(f: FieldDef, system: boolean): string {
  const mayBeNull = !system && (f.nullable || (!f.required && !f.states));
  return mayBeNull ? `${valueType(f)} | null` : valueType(f);
}

const bodyValue = (f: FieldDef) => (f.nullable ? `${valueType(f)} | null` : valueType(f));

function filterLines(r: Resource): string[] {
  const lines: string[] = [];
  for (const name of r.filterable) {
    const f = r.fields[name]!;
    const v = valueType(f);
    for (const op of operatorsFor(f.kind)) {
      if (op === 'null' && !f.nullable) continue;
      const type =
        op === 'eq' || op === 'ne'
          ? `Many<${v}>`
          : op === 'like' || op === 'ilike'
            ? 'Many<string>'
            : op === 'null'
              ? 'boolean'
              : v.includes('|')
                ? `(${v})`
                : v;
      if (op === 'eq') lines.push(`  ${key(name)}?: ${type};`);
      lines.push(`  ${literal(`${name}:${op}`)}?: ${type};`);
    }
  }
  return lines;
}

function collectionTypes(r: Resource, registry: Registry): string[] {
  const T = typeName(r.name);
  const system = new Set(['id', 'created', 'updated', 'deleted']);
  const writable = r.writable.filter((n) => !system.has(n));
  const names = r.fieldNames.map(literal).join(' | ');
  const linked = [...r.linked]
    .map(([linkedName, name]) => [linkedName, registry.get(name)!] as const)
    .filter(([, child]) => !child.underParents)
    .map(([linkedName, child]) => `${key(linkedName)}: ${typeName(child.name)}Record`);
  return [
    `/** ${r.definition.description ?? `A record of ${r.name}.`} */`,
    `export interface ${T}Record {`,
    ...r.fieldNames.map((n) => `  ${key(n)}: ${recordValue(r.fields[n]!, system.has(n))};`),
    '}',
    `/** The body of POST ${r.path} (read-only fields left out). */`,
    `export interface ${T}Create {`,
    ...writable.map((n) => `  ${key(n)}${r.fields[n]!.required ? '' : '?'}: ${bodyValue(r.fields[n]!)};`),
    '}',
    `export type ${T}Patch = Partial<${T}Create>;`,
    `export type ${T}Put = ${T}Create;`,
    `/** The filters of ${r.path}: each filterable field with the operators its kind takes. */`,
    `export interface ${T}Filters {`,
    ...filterLines(r),
    '}',
    `export interface ${T} {`,
    `  path: ${literal(r.path.slice(1))};`,
    `  record: ${T}Record;`,
    `  create: ${T}Create;`,
    `  patch: ${T}Patch;`,
    `  put: ${T}Put;`,
    `  filters: ${T}Filters;`,
    `  orderBy: \`\${${names}}\${'' | ':asc' | ':desc' | ' asc' | ' desc'}\`;`,
    `  linked: {${linked.length ? ` ${linked.join('; ')} ` : ''}};`,
    `  fields: ${names};`,
    '}',
  ];
}
