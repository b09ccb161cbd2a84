import { EngineError } from '../../errors.ts';
import type { Resource } from '../../registry.ts';
import { holds, NEVER, showsJson, type RowCondition } from '../conditions.ts';
import type { UpdateWrite, WriteRule } from './rule.ts';

type Frozen = readonly (readonly [string, readonly (readonly [string, readonly string[]])[]])[];
const declared = new WeakMap<Resource, Frozen>();

/** The fields declaring `frozenIn`, with the declaration; derived once per collection. */
function frozenFields(resource: Resource): Frozen {
  let found = declared.get(resource);
  if (!found) {
    found = Object.entries(resource.fields).flatMap(([name, f]) => (f.frozenIn ? [[name, Object.entries(f.frozenIn)] as const] : []));
    declared.set(resource, found);
  }
  return found;
}

/** The fields declaring `frozenIn` that a write sends. */
const frozenSent = (resource: Resource, write: UpdateWrite) => {
  const fields = frozenFields(resource);
  return fields.length === 0 ? fields : fields.filter(([name]) => write.sent[name] !== undefined);
};

/**
 * A field declared `frozenIn: { status: ['closed'] }` keeps its value while the record's
 * `status` is one of those: a write may send it then only with the value it has.
 */
export const frozenRule: WriteRule = {
  name: 'frozen fields',
  check: (name, field, fields) =>
    Object.entries(field.frozenIn ?? {}).flatMap(([by, values]) =>
      fields[by]?.kind !== 'string'
        ? [`frozenIn: ${by} is not a string field`]
        : !Array.isArray(values) || values.some((v) => typeof v !== 'string')
          ? [`frozenIn.${by} must list values of ${by}`]
          : by === name
            ? [`frozenIn: a field cannot be frozen by itself`]
            : [],
    ),
  conditions: (resource, write) => frozenSent(resource, write).map(([name, whens]) => keptOrThawed(name, whens, write)),
  refusal: (resource, write, current) =>
    new EngineError(
      'invalid-body',
      'The body is not a valid record: see errors.',
      frozenSent(resource, write)
        .filter(([name, whens]) => !holds(keptOrThawed(name, whens, write), current))
        .map(([field, whens]) => {
          const [by] = whens.find(([by, values]) => values.includes(current.record[by] as string))!;
          return { field, message: `may not change while ${by} is ${String(current.record[by])}` };
        }),
    ),
};

/** The field keeps the value sent, or the record is in none of the states that freeze it. */
function keptOrThawed(name: string, whens: readonly (readonly [string, readonly string[]])[], write: UpdateWrite): RowCondition {
  const json = showsJson(write.sent, [name]);
  const kept: RowCondition = json === undefined ? NEVER : { is: 'shows', fields: [name], json };
  const frozen: RowCondition[] = whens.map(([by, values]) => ({ is: 'in', field: by, values }));
  return { is: 'any', of: [kept, { is: 'not', of: { is: 'any', of: frozen } }] };
}
