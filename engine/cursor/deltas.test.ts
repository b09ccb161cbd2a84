import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DELTA_ID_LIMIT, decodeDeltas, encodeDeltas } from './deltas.ts';
import { chunksOf, DELTAS, idsAt, idsPerChunk, pageSpan } from './layout.ts';

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
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 120 }), (total, limit, page) => {
        const ids = Array.from({ length: total }, (_, i) => 3 * i + ((i * 7919) % 5));
        const perChunk = idsPerChunk(DELTAS);
        const span = pageSpan(page, limit, total);
        const { first, last } = chunksOf(span, DELTAS);
        const chunks = new Map<number, string>();
        for (let c = first; c <= last; c++) chunks.set(c, encodeDeltas(ids, c * perChunk, Math.min(total, (c + 1) * perChunk)));
        expect(idsAt(chunks, DELTAS, span.start, span.end)).toEqual(ids.slice(span.start, span.end));
      }),
      { numRuns: 300 },
    );
  });
});
