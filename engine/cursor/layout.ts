import { decodeAscending, decodeDeltas } from './deltas.ts';

/**
 * How a cursor's ordered ids are packed: each id plus 10^(width-1), in decimal, so every id
 * takes exactly `width` digits (integer-to-text is the cheapest conversion both databases
 * have), cut into chunk rows of idsPerChunk(width) ids. The width is the least that fits the
 * table's largest id. Pure.
 */

/** Widths 1 to 16: every id below 9e15 (and every id JavaScript holds exactly is below 2^53). */
export const WIDTHS = Array.from({ length: 16 }, (_, i) => i + 1);
export const offsetOf = (width: number) => 10 ** (width - 1);
/** Ids below this take `width` digits once offset: id + 10^(width-1) < 10^width. */
export const limitOf = (width: number) => 9 * offsetOf(width);

/** The least width that holds every id up to `maxId`. */
export const widthFor = (maxId: number) => WIDTHS.find((w) => maxId < limitOf(w)) ?? WIDTHS.length;

/**
 * A chunk row holds 1,920 characters of ids: small enough that a row stays in one page (no
 * overflow, no TOAST compression), large enough that a million ids take a few thousand rows.
 * Never fewer than 192 ids: cursors of widths 10 and 16, the only widths before narrower ones,
 * were cut 192 ids a chunk, and stay readable as they were written.
 */
const CHUNK_CHARS = 1920;
const MIN_CHUNK_IDS = 192;
/** A ranged snapshot's one chunk row holds every position: page reads find it as any chunk's. */
const RANGED_CHUNK_IDS = 2 ** 30;
/** Ids of a chunk row of deltas: a letter or two each, most of the time. */
const DELTA_CHUNK_IDS = 1920;
/**
 * Ids of a chunk row of ascending deltas: a character each, most of the time, so a row of about
 * 3,800 bytes fills one of SQLite's 4 KiB pages on its own (the most a row keeps in its page is
 * 4,061 bytes). Rows of 1,920 ids took a page each all the same, and a page is what SQLite writes.
 */
const ASCENDING_CHUNK_IDS = 3584;
/**
 * How a snapshot's chunk rows hold its ids. The cursor table keeps it in its `width` column as
 * one number (a value mapping; the stored values are what they were): `packed` ids of `digits`
 * digits each (1 to 16), `ranged` (layoutOf: RANGED plus its digits), `deltas` and
 * `ascending-deltas` (deltas.ts), `lazy` (a head row whose ids are not made yet: lazy.ts).
 * COLUMN_BASE is the mapping, declared once; everything else is derived from it.
 */
export type Layout =
  | { readonly kind: 'packed'; readonly digits: number }
  | { readonly kind: 'ranged'; readonly digits: number }
  | { readonly kind: 'deltas' }
  | { readonly kind: 'ascending-deltas' }
  | { readonly kind: 'lazy' };
export type LayoutKind = Layout['kind'];

/** Each layout's `width` column: its base, plus its digits for `packed` and `ranged`. */
const COLUMN_BASE: Record<LayoutKind, number> = { packed: 0, ranged: 32, deltas: 64, 'ascending-deltas': 65, lazy: 66 };

/** Ids a chunk row of each layout holds. */
const PER_CHUNK: Record<LayoutKind, (digits: number) => number> = {
  packed: (digits) => Math.max(MIN_CHUNK_IDS, Math.floor(CHUNK_CHARS / digits)),
  ranged: () => RANGED_CHUNK_IDS,
  deltas: () => DELTA_CHUNK_IDS,
  'ascending-deltas': () => ASCENDING_CHUNK_IDS,
  // No chunk row holds any ids: a page read in SQL finds every position in chunk 0.
  lazy: () => RANGED_CHUNK_IDS,
};

const digitsOf = (l: Layout) => ('digits' in l ? l.digits : 0);
/** A layout's `width` column. */
export const columnOf = (l: Layout): number => COLUMN_BASE[l.kind] + digitsOf(l);

/** Every layout, by its `width` column (made once: page reads look layouts up). */
const BY_COLUMN = new Map<number, Layout>(
  [
    ...WIDTHS.map((digits) => ({ kind: 'packed', digits }) as const),
    ...WIDTHS.map((digits) => ({ kind: 'ranged', digits }) as const),
    { kind: 'deltas' } as const,
    { kind: 'ascending-deltas' } as const,
    { kind: 'lazy' } as const,
  ].map((l) => [columnOf(l), Object.freeze(l)]),
);

/** The layout a `width` column names; undefined for a value none has. */
export const layoutOf = (column: number): Layout | undefined => BY_COLUMN.get(column);

export const idsPerChunk = (column: number) => {
  const l = layoutOf(column);
  return l ? PER_CHUNK[l.kind](digitsOf(l)) : 0;
};
/** idsPerChunk in SQL, of an integer expression: one branch per layout, from the same table. */
export const idsPerChunkSql = (column: string) =>
  `(case ${column} ${[...BY_COLUMN.keys()].map((c) => `when ${c} then ${idsPerChunk(c)}`).join(' ')} end)`;

/**
 * A ranged snapshot: ascending ids that are every id from `lo` to `hi` but a few (the holes),
 * as one chunk row of `lo`, `hi` and then the holes in ascending order, each packed at the
 * width that fits `hi`. The list of a table in id order is one: a table with few deletions
 * collapses to a few dozen characters, whatever its size.
 */
export const RANGED = COLUMN_BASE.ranged;
export const isRanged = (column: number) => layoutOf(column)?.kind === 'ranged';
export const rangedWidth = (digits: number) => columnOf({ kind: 'ranged', digits });
/** The `width` column of a snapshot whose chunk rows hold deltas (deltas.ts). */
export const DELTAS = columnOf({ kind: 'deltas' });
/** The `width` column of a snapshot of strictly ascending ids whose chunk rows hold ascending deltas (deltas.ts). */
export const ASCENDING_DELTAS = columnOf({ kind: 'ascending-deltas' });
/** The `width` column of a lazy cursor's head row, whose ids are not made yet (engine/cursor/lazy.ts). */
export const LAZY = columnOf({ kind: 'lazy' });
/** The holes a ranged snapshot holds at most: lo, hi and they fill one chunk row of packed ids. */
export const maxHoles = (digits: number) => Math.floor(CHUNK_CHARS / digits) - 2;
/** maxHoles in SQL, of an integer expression. */
export const maxHolesSql = (digits: string) => `(${CHUNK_CHARS} / ${digits} - 2)`;

/**
 * The ids at positions [start, end) of a ranged snapshot. The holes below the id at position p
 * are the first i with hole(i) - i - lo > p (that difference never falls as i grows, holes being
 * distinct and ascending): a binary search, then a walk that steps over holes.
 */
function rangedIdsAt(text: string, digits: number, start: number, end: number): number[] {
  const decode = DECODERS[digits - 1]!;
  const at = (i: number) => decode(text.slice(i * digits, (i + 1) * digits));
  const lo = at(0);
  const hi = at(1);
  const holes = text.length / digits - 2;
  const hole = (i: number) => at(i + 2);
  let low = 0;
  let high = holes;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (hole(mid) - mid - lo > start) high = mid;
    else low = mid + 1;
  }
  let i = low;
  let id = lo + start + i;
  const ids: number[] = [];
  for (let pos = start; pos < end && id <= hi; pos++) {
    ids.push(id);
    id++;
    while (i < holes && hole(i) === id) {
      id++;
      i++;
    }
  }
  return ids;
}

/** Positions [start, end) of a page in the snapshot (end clipped to the total when known). */
export function pageSpan(page: number, limit: number, total?: number) {
  const start = (page - 1) * limit;
  const end = total === undefined ? start + limit : Math.min(start + limit, total);
  return { start, end };
}

/** The chunk rows that hold positions [start, end). */
export function chunksOf(span: { start: number; end: number }, width: number) {
  const perChunk = idsPerChunk(width);
  return { first: Math.floor(span.start / perChunk), last: Math.floor(Math.max(span.start, span.end - 1) / perChunk) };
}

/**
 * An id from its `width` digits. Past 2^53 a double holds only some integers: at width 16 an id
 * plus 10^15 may be one it does not (8,007,199,254,740,993 + 10^15), though the id itself is, so
 * there the offset comes off in integer arithmetic first. Every narrower width stays below 2^53.
 */
function decoderOf(width: number): (digits: string) => number {
  const offset = offsetOf(width);
  if (offset * 10 <= Number.MAX_SAFE_INTEGER) return (digits) => Number(digits) - offset;
  const big = BigInt(offset);
  return (digits) => Number(BigInt(digits) - big);
}
/** One decoder per width (DECODERS[width - 1]), made once: idsAt runs on every page read. */
const DECODERS = WIDTHS.map(decoderOf);

/** The ids at positions [start, end) from the chunk rows that hold them. */
type Chunks = ReadonlyMap<number, string>;

/** How each layout's ids are read back: the ids at positions [start, end) of its chunk rows. */
const READERS: Record<LayoutKind, (chunks: Chunks, perChunk: number, digits: number, start: number, end: number) => number[]> = {
  packed: packedIdsAt,
  ranged: (chunks, _, digits, start, end) => {
    const text = chunks.get(0);
    return text === undefined ? [] : rangedIdsAt(text, digits, start, end);
  },
  deltas: (chunks, perChunk, _, start, end) => deltaIdsAt(chunks, decodeDeltas, perChunk, start, end),
  'ascending-deltas': (chunks, perChunk, _, start, end) => deltaIdsAt(chunks, decodeAscending, perChunk, start, end),
  lazy: () => [],
};

/** The ids at positions [start, end) from the chunk rows that hold them, of the layout a `width` column names. */
export function idsAt(chunks: Chunks, column: number, start: number, end: number): number[] {
  const l = layoutOf(column);
  if (!l) return [];
  return READERS[l.kind](chunks, PER_CHUNK[l.kind](digitsOf(l)), digitsOf(l), start, end);
}

function packedIdsAt(chunks: Chunks, perChunk: number, width: number, start: number, end: number): number[] {
  const decode = DECODERS[width - 1]!;
  const ids: number[] = [];
  for (let pos = start; pos < end; pos++) {
    const text = chunks.get(Math.floor(pos / perChunk));
    if (text === undefined) break;
    const at = (pos % perChunk) * width;
    if (at >= text.length) break;
    ids.push(decode(text.slice(at, at + width)));
  }
  return ids;
}

/** The ids at positions [start, end) of a snapshot of deltas, chunk row by chunk row. */
function deltaIdsAt(
  chunks: Chunks,
  decode: (text: string, from: number, to: number) => number[],
  perChunk: number,
  start: number,
  end: number,
): number[] {
  const ids: number[] = [];
  for (let pos = start; pos < end;) {
    const chunk = Math.floor(pos / perChunk);
    const text = chunks.get(chunk);
    if (text === undefined) break;
    const first = chunk * perChunk;
    const got = decode(text, pos - first, Math.min(end, first + perChunk) - first);
    ids.push(...got);
    if (pos + got.length < Math.min(end, first + perChunk)) break;
    pos = first + perChunk;
  }
  return ids;
}

/** Random bytes drawn 4 KiB at a time: one call into the system's generator per 256 ids, not one each (each call costs more than an id: BENCHMARKS.md). */
const pool = new Uint8Array(4096);
let used = pool.length;
function randomBytes(n: number): Uint8Array {
  if (used + n > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  return pool.subarray(used, (used += n));
}

/**
 * The creation time in base 36 (so ids sort by age), then 128 random bits in URL-safe base64:
 * unguessable and opaque. New cursors land at the end of the primary-key index instead of at
 * a random place in it, and the sweep removes them from its start.
 */
export function newCursorId(now = Date.now()): string {
  return now.toString(36).padStart(9, '0') + base64url(randomBytes(16));
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Bytes in URL-safe base64 without padding (RFC 4648 section 5). By table: several times faster
 * than `btoa` of the bytes as a string and three replaces (BENCHMARKS.md); Buffer's own is
 * Node's, and the engine runs elsewhere too.
 */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]! + BASE64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]!;
  }
  return out;
}

/**
 * Whether packed ids of one width (so text order is number order) rise from each to the next.
 * Slices compared as strings: faster than comparing character codes or adding up digits
 * (BENCHMARKS.md).
 */
export function idsAscend(packed: string, width: number): boolean {
  let previous = packed.slice(0, width);
  for (let at = width; at < packed.length; at += width) {
    const id = packed.slice(at, at + width);
    if (!(previous < id)) return false;
    previous = id;
  }
  return true;
}
