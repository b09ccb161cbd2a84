import type { Resource } from '../registry.ts';
import type { RawReserved } from './parse.ts';
import { parseFields, parseLinked } from './shape.ts';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 50;

export type Direction = 'asc' | 'desc';

/** The `$` parameters of a list query, checked. */
export interface Reserved {
  readonly order: { readonly field: string; readonly direction: Direction };
  readonly deleted: boolean;
  /** Page size as served (over MAX_LIMIT served as MAX_LIMIT). */
  readonly limit: number;
  readonly page: number;
  readonly cursor: string | undefined;
  /** `$fields`: only these fields (and id), in column order. */
  readonly fields: readonly string[] | undefined;
  /** `$linked`: the names asked, each once. */
  readonly linked: readonly string[] | undefined;
  /** Which of `$limit`, `$orderBy`, `$deleted`, `$fields`, `$linked` the request named. */
  readonly given: {
    readonly limit: boolean;
    readonly order: boolean;
    readonly deleted: boolean;
    readonly fields: boolean;
    readonly linked: boolean;
  };
}

type Problem = { parameter: string; message: string };
type Handler = (value: string, resource: Resource) => { ok: true; set: Partial<Mutable<Reserved>> } | { ok: false; message: string };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const POSITIVE = /^\+?\d{1,15}$/;

const HANDLERS: Record<string, Handler> = {
  $deleted: (v) =>
    v === 'true' || v === 'false' ? { ok: true, set: { deleted: v === 'true' } } : { ok: false, message: '$deleted must be true or false' },
  $limit: (v) => {
    const n = POSITIVE.test(v) ? Number(v) : 0;
    return n >= 1
      ? { ok: true, set: { limit: Math.min(n, MAX_LIMIT) } }
      : { ok: false, message: `$limit must be a whole number from 1 (at most ${MAX_LIMIT} are served)` };
  },
  $page: (v) => {
    const n = POSITIVE.test(v) ? Number(v) : 0;
    return n >= 1 ? { ok: true, set: { page: n } } : { ok: false, message: '$page must be a whole number from 1' };
  },
  $cursor: (v) => (v === '' ? { ok: false, message: '$cursor must not be empty' } : { ok: true, set: { cursor: v } }),
  $orderBy: (v, resource) => {
    // `field asc` arrives as `field+asc` or `field%20asc`; any run of spaces separates the two.
    const m = /^([^\s:]+)(?:(?::|\s+)(asc|desc))?$/.exec(v.trim());
    const field = m?.[1];
    // hasOwn: `constructor` or `__proto__` are not fields, whatever `in` says.
    if (field === undefined || !Object.hasOwn(resource.fields, field))
      return {
        ok: false,
        message: `$orderBy takes one field as field, field:asc, field:desc, "field asc" or "field desc"; fields: ${resource.fieldNames.join(', ')}`,
      };
    return { ok: true, set: { order: { field, direction: (m![2] ?? 'asc') as Direction } } };
  },
  $fields: (v, resource) => {
    const r = parseFields(v, resource);
    return r.ok ? { ok: true, set: { fields: r.names } } : r;
  },
  $linked: (v, resource) => {
    const r = parseLinked(v, resource);
    return r.ok ? { ok: true, set: { linked: r.names } } : r;
  },
};

const GIVEN_KEY = { $limit: 'limit', $orderBy: 'order', $deleted: 'deleted', $fields: 'fields', $linked: 'linked' } as const;

export function resolveReserved(raw: readonly RawReserved[], resource: Resource, errors: Problem[]): Reserved {
  const given = { limit: false, order: false, deleted: false, fields: false, linked: false };
  const out: Mutable<Reserved> = {
    order: { field: 'id', direction: 'asc' },
    deleted: false,
    limit: DEFAULT_LIMIT,
    page: 1,
    cursor: undefined,
    fields: undefined,
    linked: undefined,
    given,
  };
  const seen = new Set<string>();
  for (const { param, value } of raw) {
    const handler = Object.hasOwn(HANDLERS, param) ? HANDLERS[param] : undefined;
    if (!handler) {
      errors.push({ parameter: param, message: `unknown parameter; reserved parameters: ${Object.keys(HANDLERS).join(', ')}` });
      continue;
    }
    if (seen.has(param)) {
      errors.push({ parameter: param, message: `${param} may be given once` });
      continue;
    }
    seen.add(param);
    const r = handler(value, resource);
    if (!r.ok) {
      errors.push({ parameter: param, message: r.message });
      continue;
    }
    Object.assign(out, r.set);
    if (param in GIVEN_KEY) given[GIVEN_KEY[param as keyof typeof GIVEN_KEY]] = true;
  }
  return out;
}
