import type { FieldKind } from '../define.ts';
import { EngineError, type Result } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { isOperator, OPERATOR_RULES, operatorsFor, type Operand, type Operator } from './operators.ts';
import type { RawFilter, RawQuery } from './parse.ts';
import { resolveReserved, type Reserved } from './reserved.ts';
import { likePatternProblem, VALUE_PARSERS, type Parsed } from './values.ts';

/** One typed condition: a property, an operator, and its typed values (all repeats merged). */
export interface Filter {
  readonly field: string;
  readonly kind: FieldKind;
  readonly op: Operator;
  /** For `null`: one boolean, true for "is empty". */
  readonly values: readonly unknown[];
  /** The parameters as sent that make up this filter, for error messages. */
  readonly params: readonly string[];
}

export interface ResolvedQuery extends Reserved {
  readonly filters: readonly Filter[];
}

type Problem = { parameter: string; message: string };

/**
 * Distinct filter values in one query; each is one SQL parameter, and SQLite takes at most 32,766.
 * A request line of 16 KiB (the server's limit) holds fewer than this.
 */
export const MAX_FILTER_VALUES = 10_000;

/** Checks a parsed query against a resource: properties, operators, value types, repeat rules. */
export function resolveQuery(raw: RawQuery, resource: Resource): Result<ResolvedQuery> {
  // The grammar's refusals first, as the query string's own problems.
  const errors: Problem[] = raw.filters.flatMap((f) => ('malformed' in f ? [{ parameter: f.param, message: f.malformed }] : []));
  const groups = new Map<string, { field: string; kind: FieldKind; op: Operator; values: Set<unknown>; params: string[] }>();
  let valueCount = 0;
  for (const f of raw.filters) {
    if ('malformed' in f) continue;
    const typed = resolveFilter(f, resource, errors);
    if (!typed) continue;
    const key = `${typed.field}:${typed.op}`;
    const group = groups.get(key);
    const fresh = !group || !group.values.has(typed.value);
    if (fresh && ++valueCount === MAX_FILTER_VALUES + 1)
      errors.push({ parameter: f.param, message: `a query may hold at most ${MAX_FILTER_VALUES} distinct filter values` });
    if (!group) {
      groups.set(key, { field: typed.field, kind: typed.kind, op: typed.op, values: new Set([typed.value]), params: [f.param] });
      continue;
    }
    const rule = OPERATOR_RULES[typed.op];
    if (rule.repeat === 'once') {
      errors.push({
        parameter: f.param,
        message: `${typed.field}:${typed.op} may be given once${rule.instead ? `; ${rule.instead}` : ''}`,
      });
      continue;
    }
    if (!group.params.includes(f.param)) group.params.push(f.param);
    group.values.add(typed.value);
  }
  const reserved = resolveReserved(raw.reserved, resource, errors);
  if (errors.length) return { error: new EngineError('invalid-query', 'The query is not valid: see errors.', errors) };
  const filters = [...groups.values()].map(({ field, kind, op, values, params }) => ({ field, kind, op, values: [...values], params }));
  return { value: Object.assign(reserved, { filters }) };
}

function resolveFilter(f: RawFilter, resource: Resource, errors: Problem[]) {
  const fail = (message: string) => void errors.push({ parameter: f.param, message });
  if (!resource.filterable.includes(f.property)) {
    const known = Object.hasOwn(resource.fields, f.property) ? `${f.property} is not filterable` : `unknown property ${f.property}`;
    return fail(`${known}; filterable properties: ${resource.filterable.join(', ')}`);
  }
  const kind = resource.fields[f.property]!.kind;
  const op = f.operator ?? 'eq';
  if (!isOperator(op)) return fail(`unknown operator ${op}; operators for ${f.property}: ${operatorsFor(kind).join(', ')}`);
  if (!OPERATOR_RULES[op].kinds.includes(kind))
    return fail(`${op} does not apply to ${kind} fields; operators for ${f.property}: ${operatorsFor(kind).join(', ')}`);
  const parsed = OPERANDS[OPERATOR_RULES[op].operand](f.value, f.property, kind);
  return parsed.ok ? { field: f.property, kind, op, value: parsed.value } : fail(parsed.message);
}

const emptyValue = (property: string): Parsed => ({
  ok: false,
  message: `empty value; use ${property}:null= to find records with no ${property}`,
});

/** A filter's value as its operator takes it (Operand). */
const OPERANDS: Record<Operand, (value: string, property: string, kind: FieldKind) => Parsed> = {
  presence: (value) =>
    value === '' || value === 'true' || value === 'false'
      ? { ok: true, value: value !== 'false' }
      : { ok: false, message: 'null takes an empty value or true (empty) or false (not empty)' },
  pattern(value, property) {
    if (value === '') return emptyValue(property);
    const problem = likePatternProblem(value);
    return problem ? { ok: false, message: problem } : { ok: true, value };
  },
  value(value, property, kind) {
    if (value === '') return emptyValue(property);
    const parsed = VALUE_PARSERS[kind](value);
    return parsed.ok ? parsed : { ok: false, message: `${property} ${parsed.message}` };
  },
};
