import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commaIds, layoutOf } from './lazy.ts';
import { idsAt } from './layout.ts';

describe('lazy cursors, pure parts', () => {
  it('read ids written as decimal text, each followed by a comma, exactly (up to the largest id a double holds)', () => {
    fc.assert(
      fc.property(fc.array(fc.maxSafeNat()), (ids) => {
        expect(Array.from(commaIds(ids.map((id) => `${id},`).join('')))).toEqual(ids);
      }),
    );
    expect(commaIds('')).toHaveLength(0);
  });

  it('lay ids out so that every page gives them back in order: ranged, ascending deltas, deltas or packed', () => {
    // Ids below 9e15, every layout's limit (layout.ts WIDTHS): small ones close together, and any.
    const distinct = fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 9e15 - 1 })), { maxLength: 400 });
    fc.assert(
      fc.property(distinct, fc.boolean(), (list, sorted) => {
        const ids = sorted ? [...list].sort((a, b) => a - b) : list;
        const made = layoutOf(new Float64Array(ids), sorted);
        const chunks = new Map(made.chunks.map((text, i) => [i, text]));
        expect(ids.length ? idsAt(chunks, made.width, 0, ids.length) : []).toEqual(ids);
      }),
    );
  });
});
