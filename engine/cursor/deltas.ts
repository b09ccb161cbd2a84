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

/** Letters an encoding is written into, grown as needed (ASCII: a byte a letter). */
let buffer = new Uint8Array(16 * 1024);
const ascii = new TextDecoder('latin1');

/** Ids [from, to) of `ids` as one chunk row's text. */
export function encodeDeltas(ids: ArrayLike<number>, from: number, to: number): string {
  let n = 0;
  let previous = 0;
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    const d = id - previous;
    const value = i === from ? id : d >= 0 ? 2 * d : -2 * d - 1;
    previous = id;
    let letters = 1;
    for (let v = Math.floor(value / 26); v > 0; v = Math.floor(v / 26)) letters++;
    if (n + letters > buffer.length) {
      const grown = new Uint8Array(2 * (n + letters));
      grown.set(buffer.subarray(0, n));
      buffer = grown;
    }
    let v = value;
    buffer[n + letters - 1] = LOWER_A + (v % 26);
    for (let k = letters - 2; k >= 0; k--) {
      v = Math.floor(v / 26);
      buffer[n + k] = UPPER_A + (v % 26);
    }
    n += letters;
  }
  return ascii.decode(buffer.subarray(0, n));
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

/**
 * Ascending deltas (layout.ts's ASCENDING_DELTAS layout): a chunk row's first id, then each id's
 * gap from the one before less one (an ascending snapshot's ids are distinct: every gap is at
 * least 1), each in base 47 over printable ASCII, '!' to 'O' for every digit but the last, 'P'
 * to '~' for the last. A search's ids in id order lie a few dozen apart: a character each, about
 * half what zigzagged letters take, so half the bytes written (BENCHMARKS.md, "New searches at any size"). Pure.
 */
const BASE = 47;
const DIGIT = 33;
const LAST_DIGIT = DIGIT + BASE;

/** Letters an ascending delta takes at most: every id below DELTA_ID_LIMIT takes fewer than 47^10. */
const MAX_LETTERS = 10;

/** Ids [from, to) of `ids`, strictly ascending, as one chunk row's text. */
export function encodeAscending(ids: ArrayLike<number>, from: number, to: number): string {
  // Room for the longest deltas up front: no check per id.
  if (buffer.length < (to - from) * MAX_LETTERS) buffer = new Uint8Array((to - from) * MAX_LETTERS);
  let n = 0;
  let previous = -1;
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    const value = i === from ? id : id - previous - 1;
    previous = id;
    // Most gaps of a search's ids take one letter.
    if (value < BASE) {
      buffer[n++] = LAST_DIGIT + value;
      continue;
    }
    let letters = 1;
    for (let v = Math.floor(value / BASE); v > 0; v = Math.floor(v / BASE)) letters++;
    let v = value;
    buffer[n + letters - 1] = LAST_DIGIT + (v % BASE);
    for (let k = letters - 2; k >= 0; k--) {
      v = Math.floor(v / BASE);
      buffer[n + k] = DIGIT + (v % BASE);
    }
    n += letters;
  }
  return ascii.decode(buffer.subarray(0, n));
}

/** The ids of positions [from, to) within a chunk row's text of ascending deltas. */
export function decodeAscending(text: string, from: number, to: number): number[] {
  const ids: number[] = [];
  let id = 0;
  let value = 0;
  let pos = 0;
  for (let at = 0; at < text.length && pos < to; at++) {
    const c = text.charCodeAt(at);
    if (c < LAST_DIGIT) {
      value = value * BASE + (c - DIGIT);
      continue;
    }
    value = value * BASE + (c - LAST_DIGIT);
    id = pos === 0 ? value : id + value + 1;
    if (pos >= from) ids.push(id);
    value = 0;
    pos++;
  }
  return ids;
}
