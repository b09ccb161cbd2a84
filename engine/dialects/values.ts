/** Value conversions both dialects share. */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A date value as YYYY-MM-DD; drivers that parse dates give local midnight. */
export function dateString(v: unknown): unknown {
  if (v instanceof Date) return `${pad(v.getFullYear(), 4)}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`;
  return v;
}

/** A timestamp value as RFC 3339 UTC with milliseconds. */
export function timestampString(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string') {
    const t = Date.parse(v.includes('T') ? v : v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
    return Number.isNaN(t) ? v : new Date(t).toISOString();
  }
  return v;
}

/** Integers and numbers as numbers (int8 arrives as a string from pg). */
export function integerNumber(v: unknown): unknown {
  return typeof v === 'string' || typeof v === 'bigint' ? Number(v) : v;
}
