import { DELTA_ID_LIMIT, encodeAscending, encodeDeltas } from './deltas.ts';
import { ASCENDING_DELTAS, DELTAS, idsPerChunk, offsetOf } from './layout.ts';

/**
 * A search's ids in id order as ascending deltas (deltas.ts), from ids read in whatever order a
 * database's plan gives them: parsed and put in order in arrays reused by every snapshot, then
 * encoded chunk row by chunk row. Pure (module-level scratch memory only).
 */

/**
 * Two arrays of ids reused by every snapshot (grown as needed; a snapshot reads them before its
 * first await): a new Float64Array of each size per search cost more in allocation and garbage
 * collection than the pass that fills it (BENCHMARKS.md, "New searches at any size").
 */
let scratch = [new Float64Array(8192), new Float64Array(8192)] as const;
function scratchOf(n: number): readonly [Float64Array, Float64Array] {
  if (scratch[0].length < n) {
    const size = 2 ** Math.ceil(Math.log2(n));
    scratch = [new Float64Array(size), new Float64Array(size)];
  }
  return scratch;
}

/** Packed ids (layout.ts) as numbers, digit by digit: no string per id. A view of scratch memory. */
export function unpack(packed: string, width: number): Float64Array {
  const offset = offsetOf(width);
  const n = packed.length / width;
  const ids = scratchOf(n)[0].subarray(0, n);
  for (let i = 0, at = 0; at < packed.length; i++) {
    let v = 0;
    for (const end = at + width; at < end; at++) v = v * 10 + packed.charCodeAt(at) - 48;
    ids[i] = v - offset;
  }
  return ids;
}

/**
 * Ids written in hexadecimal (lower case, as PostgreSQL's to_hex writes them: shorter than
 * decimal and cheaper for the database to write), `,` between them (`''`: none), as numbers: a
 * view of scratch memory; undefined when one is DELTA_ID_LIMIT or more (deltas do not take it,
 * nor a double every id past 2^53: the caller packs them another way).
 */
export function parseHexIds(text: string): Float64Array | undefined {
  if (text === '') return scratchOf(0)[0].subarray(0, 0);
  let n = 1;
  for (let at = text.indexOf(','); at !== -1; at = text.indexOf(',', at + 1)) n++;
  const ids = scratchOf(n)[0].subarray(0, n);
  let i = 0;
  let v = 0;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === 44) {
      // A longer id only grows past the limit: a double rounds, it does not wrap.
      if (v >= DELTA_ID_LIMIT) return undefined;
      ids[i++] = v;
      v = 0;
    } else v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  if (v >= DELTA_ID_LIMIT) return undefined;
  ids[i] = v;
  return ids;
}

/** Ascending ids as the chunk rows of an ASCENDING_DELTAS snapshot: one at least, empty for no ids. */
export function ascendingChunks(ids: Float64Array): string[] {
  const perChunk = idsPerChunk(ASCENDING_DELTAS);
  const chunks: string[] = [];
  for (let from = 0; from < Math.max(1, ids.length); from += perChunk)
    chunks.push(encodeAscending(ids, from, Math.min(ids.length, from + perChunk)));
  return chunks;
}

/** A bitmap of ids reused by every snapshot (see scratch), zero between uses. */
let bits = new Int32Array(1024);
/** The widest bitmap ascendingRuns uses, in 32-bit words (4 MiB). */
const MAX_BITMAP_WORDS = 2 ** 20;

/**
 * Ids in ascending order. A plan gives them as a few ascending runs (one per value of an IN
 * list or a range of an index, each in id order). When they lie close together (their range at
 * most 64 times their number), each sets its bit in a bitmap of the range and one scan reads them
 * back in order: no comparisons, where merging runs costs a pass over the ids and a branch the
 * processor cannot predict per id, per doubling of the runs (BENCHMARKS.md, "New searches at any size"). Otherwise
 * they are merged pairwise, run by run, still fewer passes than a sort of unknown order. Ids are
 * distinct (a table's). The answer is `ids` itself or a view of scratch memory of the same length.
 */
export function ascendingRuns(ids: Float64Array): Float64Array {
  const n = ids.length;
  let starts: number[] = [0];
  let lo = n ? ids[0]! : 0;
  let hi = lo;
  for (let i = 1; i < n; i++) {
    const id = ids[i]!;
    if (!(ids[i - 1]! < id)) starts.push(i);
    if (id < lo) lo = id;
    else if (id > hi) hi = id;
  }
  if (starts.length === 1) return ids;
  const [a, b] = scratchOf(n);
  const words = Math.floor((hi - lo) / 32) + 1;
  if (words <= 2 * n && words <= MAX_BITMAP_WORDS) {
    if (bits.length < words) bits = new Int32Array(2 ** Math.ceil(Math.log2(words)));
    for (let i = 0; i < n; i++) {
      const offset = ids[i]! - lo;
      const w = offset >>> 5;
      bits[w] = bits[w]! | (1 << (offset & 31));
    }
    const out = (ids.buffer === b.buffer ? a : b).subarray(0, n);
    let k = 0;
    for (let w = 0; w < words; w++) {
      let word = bits[w]!;
      if (word === 0) continue;
      bits[w] = 0;
      const base = lo + w * 32;
      while (word !== 0) {
        const lowest = word & -word;
        out[k++] = base + 31 - Math.clz32(lowest);
        word ^= lowest;
      }
    }
    return out;
  }
  // Merged back and forth between `ids` and the scratch array it is not a view of.
  let from: Float64Array = ids;
  let to: Float64Array = (ids.buffer === b.buffer ? a : b).subarray(0, n);
  while (starts.length > 1) {
    const next: number[] = [];
    for (let r = 0; r < starts.length; r += 2) {
      const a = starts[r]!;
      const mid = starts[r + 1] ?? n;
      const end = starts[r + 2] ?? n;
      next.push(a);
      let i = a;
      let j = mid;
      let k = a;
      while (i < mid && j < end) to[k++] = from[i]! < from[j]! ? from[i++]! : from[j++]!;
      while (i < mid) to[k++] = from[i++]!;
      while (j < end) to[k++] = from[j++]!;
    }
    starts = next;
    [from, to] = [to, from];
  }
  return from;
}

/**
 * Ids in snapshot order as chunk rows of deltas (deltas.ts), every id below DELTA_ID_LIMIT:
 * ascending deltas, the densest, when they ascend (distinct, strictly increasing); else deltas.
 * One chunk row at least, empty for no ids.
 */
export function deltaChunks(ids: Float64Array, ascending: boolean): { width: number; chunks: string[] } {
  if (ascending) return { width: ASCENDING_DELTAS, chunks: ascendingChunks(ids) };
  const per = idsPerChunk(DELTAS);
  const chunks: string[] = [];
  for (let from = 0; from < Math.max(1, ids.length); from += per) chunks.push(encodeDeltas(ids, from, Math.min(ids.length, from + per)));
  return { width: DELTAS, chunks };
}
