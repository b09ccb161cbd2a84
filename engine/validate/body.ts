import * as v from 'valibot';
import type { CreateBodyOf, PatchBodyOf, ReplaceBodyOf, ResourceDefinition } from '../define.ts';
import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { defaultOf, fieldSchema } from './field.ts';

export type BodyMode = 'create' | 'replace' | 'patch';

/** An object schema with its field names: unknown fields are found by `checkBody`. */
export type BodySchema<T> = v.GenericSchema<unknown, T> & { readonly entries: v.ObjectEntries };

/** Body schemas of one resource, derived once from its definition. */
export interface BodySchemas<R extends ResourceDefinition = ResourceDefinition> {
  create: BodySchema<CreateBodyOf<R>>;
  replace: BodySchema<ReplaceBodyOf<R> & Record<string, unknown>>;
  patch: BodySchema<PatchBodyOf<R> & Record<string, unknown>>;
}

const objectMessage = (issue: v.BaseIssue<unknown>) => (issue.expected === 'Object' ? 'the body must be a JSON object' : 'is required');
const UNKNOWN_FIELD = 'is not a field of this resource';

/**
 * POST: writable fields, required ones present, defaults filled; read-only fields refused.
 * PUT: the same, read-only fields allowed through so the operation can compare them with the record.
 * PATCH: any subset of the writable fields, read-only fields as for PUT.
 */
export function bodySchemas<R extends ResourceDefinition>(resource: Resource): BodySchemas<R> {
  const entries = (mode: BodyMode) =>
    Object.fromEntries(
      resource.fieldNames.map((name) => {
        const f = resource.fields[name]!;
        if (f.readOnly) return [name, mode === 'create' ? v.optional(v.never('is set by the server')) : v.optional(v.unknown())];
        const schema = fieldSchema(f);
        if (mode === 'patch') return [name, v.optional(schema)];
        // SPEC 11: a record starts in the initial state, and PUT without the field keeps the current one.
        if (f.states !== undefined)
          return [
            name,
            mode === 'create'
              ? v.optional(
                  v.pipe(
                    schema,
                    v.check((s) => s === f.default, `a new record starts in ${f.default}, the initial state; move it afterwards`),
                  ),
                  f.default,
                )
              : v.optional(schema),
          ];
        return [name, f.required ? schema : v.optional(schema, () => defaultOf(f))];
      }),
    );
  // Not strictObject: it reports only the first unknown field, and every one must be named.
  const build = (mode: BodyMode) => v.object(entries(mode), objectMessage) as BodySchema<any>;
  return { create: build('create'), replace: build('replace'), patch: build('patch') };
}

export const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Checks a body against a schema: its value, or a 422 naming every offending field (one message
 * each), to which the caller may add its own problems (fieldProblems) and report them all at
 * once. A body that is not a JSON object has no fields to name: its 422 names none.
 */
export function checkBody<T>(schema: BodySchema<T>, body: unknown): Result<T> {
  if (!isPlainObject(body))
    return { error: new EngineError('invalid-body', 'The body is not a valid record: the body must be a JSON object.') };
  const unknown: ProblemItem[] = Object.keys(body)
    .filter((key) => !Object.hasOwn(schema.entries, key))
    .map((field) => ({ field, message: UNKNOWN_FIELD }));
  const result = v.safeParse(schema, body, { abortEarly: false });
  if (result.success) return unknown.length ? invalidFields(unknown) : { value: result.output };
  const problems: ProblemItem[] = [];
  const seen = new Set<string>();
  for (const issue of result.issues) {
    if (!issue.path?.length) return { error: new EngineError('invalid-body', `The body is not a valid record: ${issue.message}.`) };
    const field = issue.path.map((p) => String(p.key)).join('.');
    if (seen.has(field)) continue; // one message per field: the first is the most basic
    seen.add(field);
    problems.push({ field, message: issue.message });
  }
  return invalidFields([...problems, ...unknown]);
}

const invalidFields = (problems: ProblemItem[]): Result<never> => ({
  error: new EngineError('invalid-body', 'The body is not a valid record: see errors.', problems),
});

/**
 * The offending fields of a checked body, none when it is valid, to report with the caller's
 * own problems; a body refused with no field to name (not a JSON object) is thrown at once.
 */
export function fieldProblems(checked: Result<unknown>): readonly ProblemItem[] {
  if (!('error' in checked)) return [];
  if (checked.error.errors.length === 0) throw checked.error;
  return checked.error.errors;
}
