import { isDate, isTimestamp, type FieldKind } from '../define.ts';

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/** Query-string values typed by the field they filter. */
export const VALUE_PARSERS: Record<FieldKind, (s: string) => Parsed> = {
  integer: (s) => {
    const n = /^[+-]?\d{1,16}$/.test(s) ? Number(s) : NaN;
    return Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false, message: 'must be an integer' };
  },
  string: (s) => ({ ok: true, value: s }),
  date: (s) => (isDate(s) ? { ok: true, value: s } : { ok: false, message: 'must be a real date in the form YYYY-MM-DD' }),
  timestamp: (s) =>
    isTimestamp(s)
      ? { ok: true, value: new Date(s).toISOString() }
      : { ok: false, message: 'must be an RFC 3339 date-time with a zone, e.g. 2024-01-31T08:00:00Z' },
  boolean: (s) =>
    s === 'true' || s === 'false' ? { ok: true, value: s === 'true' } : { ok: false, message: 'must be true or false' },
};

/** A LIKE pattern may not end in a lone escape character. */
export function likePatternProblem(p: string): string | undefined {
  let i = 0;
  while (i < p.length) i += p[i] === '\\' ? 2 : 1;
  return i > p.length ? 'a pattern may not end with an unescaped \\ (write \\\\ for a backslash)' : undefined;
}
