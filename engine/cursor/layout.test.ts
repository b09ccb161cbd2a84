import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limitOf, newCursorId, offsetOf, widthFor } from './layout.ts';

describe('newCursorId', () => {
  it('gives distinct, URL-safe ids that sort by creation time, across refills of its random pool', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => newCursorId(1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect([...ids].sort()).toEqual(ids);
    // 128 random bits after the time (SPEC: at least 128), 22 base64url characters: the random
    // parts differ too, not just the clock.
    const random = ids.map((id) => id.slice(9));
    for (const r of random) expect(r.length * 6).toBeGreaterThanOrEqual(128);
    expect(new Set(random).size).toBe(ids.length);
  });
});

describe('widthFor', () => {
  it('gives every id up to the largest exactly `width` digits once offset, and no narrower width would', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).filter((m) => m < limitOf(16)), fc.double({ min: 0, max: 1, noNaN: true }), (maxId, f) => {
        const w = widthFor(maxId);
        const id = Math.floor(maxId * f);
        for (const x of [0, id, maxId]) expect(String(x + offsetOf(w)).length).toBe(w);
        if (w > 1) expect(String(maxId + offsetOf(w - 1)).length).not.toBe(w - 1);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    [0, 1],
    [8, 1],
    [9, 2],
    [89, 2],
    [90, 3],
    [100_000, 6],
    [1_000_000, 7],
    [8_999_999_999, 10],
    [9_000_000_000, 11],
  ])('largest id %i: width %i', (maxId, width) => {
    expect(widthFor(maxId)).toBe(width);
  });
});
