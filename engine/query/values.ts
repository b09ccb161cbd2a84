import { isDate, isExactNumber, isTimestamp, NUMBER_DIGITS, type FieldKind } from '../define.ts';
import { isStorableText, UNSTORABLE_MESSAGE } from '../storable-text.ts';

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * SQLite refuses LIKE and GLOB patterns over 50,000 bytes; a pattern of this many UTF-16 units is
 * at most three times as many bytes, even with every wildcard escaped for GLOB.
 */
export const MAX_PATTERN_LENGTH = 4096;

/** Query-string values typed by the field they filter. */
export const VALUE_PARSERS: Record<FieldKind, (s: string) => Parsed> = {
  integer: (s) => {
    const n = /^[+-]?\d{1,16}$/.test(s) ? Number(s) : NaN;
    if (Number.isSafeInteger(n)) return { ok: true, value: n };
    // A whole number past what a JSON number holds exactly (and so past any id or value stored).
    return {
      ok: false,
      message: /^[+-]?\d+$/.test(s)
        ? `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`
        : 'must be an integer',
    };
  },
  number: (s) => {
    const n = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s) ? Number(s) : NaN;
    if (isExactNumber(n)) return { ok: true, value: n === 0 ? 0 : n };
    return { ok: false, message: `must be a number (e.g. 12.5 or 1e-3) with at most ${NUMBER_DIGITS} significant digits` };
  },
  string: (s) => (isStorableText(s) ? { ok: true, value: s } : { ok: false, message: UNSTORABLE_MESSAGE }),
  date: (s) => (isDate(s) ? { ok: true, value: s } : { ok: false, message: 'must be a real date in the form YYYY-MM-DD' }),
  timestamp: (s) =>
    isTimestamp(s)
      ? { ok: true, value: new Date(s).toISOString() }
      : { ok: false, message: 'must be an RFC 3339 date-time with a zone, in UTC years 1 to 9999, e.g. 2024-01-31T08:00:00Z' },
  boolean: (s) => (s === 'true' || s === 'false' ? { ok: true, value: s === 'true' } : { ok: false, message: 'must be true or false' }),
};

/** What is wrong with a LIKE pattern, if anything: a lone escape character at the end, its length, its characters. */
export function likePatternProblem(p: string): string | undefined {
  if (p.length > MAX_PATTERN_LENGTH) return `a pattern may be at most ${MAX_PATTERN_LENGTH} characters long`;
  if (!isStorableText(p)) return `a pattern ${UNSTORABLE_MESSAGE}`;
  let i = 0;
  while (i < p.length) i += p[i] === '\\' ? 2 : 1;
  return i > p.length ? 'a pattern may not end with an unescaped \\ (write \\\\ for a backslash)' : undefined;
}
