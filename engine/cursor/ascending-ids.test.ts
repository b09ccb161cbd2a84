import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ascendingChunks, ascendingRuns, parseHexIds } from './ascending-ids.ts';
import { DELTA_ID_LIMIT } from './deltas.ts';
import { ASCENDING_DELTAS, idsAt, idsPerChunk } from './layout.ts';

describe('ascendingRuns', () => {
  it('puts distinct ids given as ascending runs (or in any order) in ascending order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 100_000 }), { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 }), (ids, cuts) => {
        // Runs as a plan gives them: each ascending, one after another.
        const sorted = [...ids].sort((a, b) => a - b);
        const runs: number[][] = [[]];
        for (const id of sorted) (cuts.includes(id % 10) ? runs[(id % 7) % runs.length]! : runs[runs.push([]) - 1]!).push(id);
        const given = Float64Array.from(runs.flat());
        expect(Array.from(ascendingRuns(given))).toEqual(sorted);
        expect(Array.from(ascendingRuns(Float64Array.from(ids)))).toEqual(sorted);
      }),
      { numRuns: 500 },
    );
  });

  it('merges runs larger than its scratch arrays, and runs given in scratch memory itself', () => {
    const runs = [
      [1, 4, 7],
      [2, 5, 8],
      [3, 6, 9],
    ].map((r) => Array.from({ length: 4000 }, (_, i) => 9 * i + r[0]!));
    const sorted = runs.flat().sort((a, b) => a - b);
    const merged = ascendingRuns(Float64Array.from(runs.flat()));
    expect(Array.from(merged)).toEqual(sorted);
    // A result is a view of scratch memory: given back as runs, it merges again.
    merged.set(runs.flat());
    expect(Array.from(ascendingRuns(merged))).toEqual(sorted);
  });

  it('puts runs in order both ways: ids close together (by bitmap) and far apart (merged), ids past 2^32 too', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 400 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 50 })),
        fc.integer({ min: 1, max: 5 }),
        (offsets, spread, base, k) => {
          const ids = offsets.map((o) => base + o * spread);
          const sorted = [...ids].sort((a, b) => a - b);
          // k runs: ids dealt round-robin, each run ascending.
          const runs = Array.from({ length: k }, (_, r) => sorted.filter((_, i) => i % k === r));
          expect(Array.from(ascendingRuns(Float64Array.from(runs.flat())))).toEqual(sorted);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseHexIds', () => {
  it('reads hexadecimal ids separated by commas, and refuses any id deltas do not take', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat({ max: 100_000 }), fc.integer({ min: 0, max: DELTA_ID_LIMIT - 1 })), { maxLength: 50 }),
        (ids) => {
          expect(Array.from(parseHexIds(ids.map((id) => id.toString(16)).join(','))!)).toEqual(ids);
        },
      ),
    );
    expect(parseHexIds('')!.length).toBe(0);
    expect(parseHexIds(`1,${(DELTA_ID_LIMIT - 1).toString(16)}`)).toBeDefined();
    expect(parseHexIds(`1,${DELTA_ID_LIMIT.toString(16)}`)).toBeUndefined();
    expect(parseHexIds(`${DELTA_ID_LIMIT.toString(16)},2`)).toBeUndefined();
    // PostgreSQL's to_hex of a negative bigint: its two's complement, 16 digits.
    expect(parseHexIds('ffffffffffffffff')).toBeUndefined();
  });
});

describe('ascendingChunks', () => {
  it('cuts ascending ids into chunk rows that give back every page', () => {
    const ids = Float64Array.from({ length: 2 * idsPerChunk(ASCENDING_DELTAS) + 17 }, (_, i) => 5 + 3 * i + (i % 3));
    const chunks = ascendingChunks(ids);
    expect(chunks).toHaveLength(3);
    const map = new Map(chunks.map((c, i) => [i, c]));
    expect(idsAt(map, ASCENDING_DELTAS, 0, ids.length)).toEqual(Array.from(ids));
    expect(ascendingChunks(new Float64Array(0))).toEqual(['']);
  });
});
