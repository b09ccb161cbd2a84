import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DELTA_ID_LIMIT, decodeAscending, decodeDeltas, encodeAscending, encodeDeltas } from './deltas.ts';
import { ASCENDING_DELTAS, chunksOf, DELTAS, idsAt, idsPerChunk, pageSpan } from './layout.ts';

const id = fc.oneof(fc.nat({ max: 3000 }), fc.integer({ min: 0, max: DELTA_ID_LIMIT - 1 }));

describe('deltas', () => {
  it('give back any ids in any order, any range of them', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 60 }), fc.nat(), fc.nat(), (ids, a, b) => {
        const text = encodeDeltas(ids, 0, ids.length);
        const from = ids.length ? a % ids.length : 0;
        const to = from + (ids.length ? b % (ids.length - from + 1) : 0);
        expect(decodeDeltas(text, from, to)).toEqual(ids.slice(from, to));
      }),
      { numRuns: 2000 },
    );
  });

  it('take a letter an id for ids a few apart, ascending', () => {
    const ids = Array.from({ length: 100 }, (_, i) => 1_000_000 + 7 * i);
    expect(encodeDeltas(ids, 0, 100).length).toBe(encodeDeltas([1_000_000], 0, 1).length + 99);
    expect(encodeDeltas([0, 1, 0, 26], 0, 4)).toBe('acbCa'); // 0; +1 as 2; -1 as 1; +26 as 52 = 2*26 + 0
  });

  it('cut into chunk rows, give back the ids of any page', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 120 }),
        (total, limit, page) => {
          const ids = Array.from({ length: total }, (_, i) => 3 * i + ((i * 7919) % 5));
          const perChunk = idsPerChunk(DELTAS);
          const span = pageSpan(page, limit, total);
          const { first, last } = chunksOf(span, DELTAS);
          const chunks = new Map<number, string>();
          for (let c = first; c <= last; c++) chunks.set(c, encodeDeltas(ids, c * perChunk, Math.min(total, (c + 1) * perChunk)));
          expect(idsAt(chunks, DELTAS, span.start, span.end)).toEqual(ids.slice(span.start, span.end));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ascending deltas', () => {
  /** Distinct ids, ascending: gaps of one, a few, or anything up to the limit. */
  const ascending = fc
    .tuple(id, fc.array(fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 2 ** 40 })), { maxLength: 80 }))
    .map(([first, gaps]) => {
      const ids = [Math.min(first, DELTA_ID_LIMIT / 2)];
      for (const g of gaps) if (ids.at(-1)! + g < DELTA_ID_LIMIT) ids.push(ids.at(-1)! + g);
      return ids;
    });

  it('give back any ascending ids, any range of them', () => {
    fc.assert(
      fc.property(ascending, fc.nat(), fc.nat(), (ids, a, b) => {
        const text = encodeAscending(ids, 0, ids.length);
        expect(text).toMatch(/^[!-~]*$/);
        const from = ids.length ? a % ids.length : 0;
        const to = from + (ids.length ? b % (ids.length - from + 1) : 0);
        expect(decodeAscending(text, from, to)).toEqual(ids.slice(from, to));
      }),
      { numRuns: 2000 },
    );
  });

  it('take a character an id for ids up to 47 apart, half the zigzagged letters', () => {
    const ids = Array.from({ length: 100 }, (_, i) => 1_000_000 + 17 * i);
    expect(encodeAscending(ids, 0, 100).length).toBe(encodeAscending([1_000_000], 0, 1).length + 99);
    // 0; gap 1 as 0; gap 47 as 46, the last digit; gap 2,210 as 2,209 = 47 * 47: digits 1, 0, 0.
    expect(encodeAscending([0, 1, 48, 49 + 47 * 47], 0, 4)).toBe('PP~"!P');
  });

  it('cut into chunk rows, give back the ids of any page', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 120 }),
        (total, limit, page) => {
          const ids = Array.from({ length: total }, (_, i) => 3 * i + ((i * 7919) % 3));
          const perChunk = idsPerChunk(ASCENDING_DELTAS);
          const span = pageSpan(page, limit, total);
          const { first, last } = chunksOf(span, ASCENDING_DELTAS);
          const chunks = new Map<number, string>();
          for (let c = first; c <= last; c++) chunks.set(c, encodeAscending(ids, c * perChunk, Math.min(total, (c + 1) * perChunk)));
          expect(idsAt(chunks, ASCENDING_DELTAS, span.start, span.end)).toEqual(ids.slice(span.start, span.end));
        },
      ),
      { numRuns: 300 },
    );
  });
});
