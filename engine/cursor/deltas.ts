/**
 * A chunk row of ids as deltas (layout.ts's DELTAS layout): its first id, then each id's
 * difference from the one before, zigzagged (0, -1, 1, -2, ... as 0, 1, 2, 3, ...) so any order
 * works, each in base 26 with upper-case letters for every digit but its last, lower-case for
 * the last. The ids of a filtered search in id order lie a few apart: a letter each instead of
 * the packed layout's fixed width, so a snapshot writes a fraction of the bytes. Pure.
 */

const UPPER_A = 65;
const LOWER_A = 97;

/** Ids below this stay exact through zigzag (twice a difference): every id of widths 1 to 15. */
export const DELTA_ID_LIMIT = 2 ** 51;

function push(out: string[], value: number) {
  let digits = String.fromCharCode(LOWER_A + (value % 26));
  for (let v = Math.floor(value / 26); v > 0; v = Math.floor(v / 26)) digits = String.fromCharCode(UPPER_A + (v % 26)) + digits;
  out.push(digits);
}

/** Ids [from, to) of `ids` as one chunk row's text. */
export function encodeDeltas(ids: ArrayLike<number>, from: number, to: number): string {
  const out: string[] = [];
  let previous = 0;
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    const d = id - previous;
    push(out, i === from ? id : d >= 0 ? 2 * d : -2 * d - 1);
    previous = id;
  }
  return out.join('');
}

/** The ids of positions [from, to) within a chunk row's text (positions from its first id). */
export function decodeDeltas(text: string, from: number, to: number): number[] {
  const ids: number[] = [];
  let previous = 0;
  let value = 0;
  let pos = 0;
  for (let at = 0; at < text.length && pos < to; at++) {
    const c = text.charCodeAt(at);
    if (c < LOWER_A) {
      value = value * 26 + (c - UPPER_A);
      continue;
    }
    value = value * 26 + (c - LOWER_A);
    const id = pos === 0 ? value : previous + (value % 2 === 0 ? value / 2 : -(value + 1) / 2);
    if (pos >= from) ids.push(id);
    previous = id;
    value = 0;
    pos++;
  }
  return ids;
}
