import type { ByteRange } from './store.ts';

/**
 * What a `Range` header asks of `size` bytes (RFC 9110 14.2): the whole content (no header, a unit
 * other than bytes, a malformed one, or several ranges: SPEC 13 answers those whole), one range,
 * or nothing it can give (416).
 */
export type RangeAsked = { kind: 'whole' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

const ONE = /^bytes=(\d*)-(\d*)$/;

export function rangeAsked(header: string | null, size: number): RangeAsked {
  if (header === null) return { kind: 'whole' };
  const m = ONE.exec(header.replace(/\s+/g, ''));
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}
