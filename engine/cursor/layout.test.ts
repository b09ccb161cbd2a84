import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64url,
  chunksOf,
  columnOf,
  idsAscend,
  idsAt,
  idsPerChunk,
  idsPerChunkSql,
  layoutOf,
  limitOf,
  maxHoles,
  newCursorId,
  offsetOf,
  pageSpan,
  rangedWidth,
  WIDTHS,
  widthFor,
  type Layout,
} from './layout.ts';

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

describe('base64url', () => {
  it('is RFC 4648 URL-safe base64 without padding, for any bytes', () => {
    const reference = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(base64url(bytes)).toBe(reference(bytes));
      }),
    );
    expect(base64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
  });
});

describe('widthFor', () => {
  it('gives every id up to the largest exactly `width` digits once offset, and no narrower width would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).filter((m) => m < limitOf(16)),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (maxId, f) => {
          const w = widthFor(maxId);
          const id = Math.floor(maxId * f);
          for (const x of [0, id, maxId]) expect(String(x + offsetOf(w)).length).toBe(w);
          if (w > 1) expect(String(maxId + offsetOf(w - 1)).length).not.toBe(w - 1);
        },
      ),
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

describe('chunk rows', () => {
  it('keep 192 ids a row at widths 10 and 16 (the layout cursors had before narrower widths), 1,920 characters below', () => {
    expect(idsPerChunk(10)).toBe(192);
    expect(idsPerChunk(16)).toBe(192);
    expect(idsPerChunk(7)).toBe(274);
    for (const w of WIDTHS) expect(idsPerChunk(w) * w).toBeLessThanOrEqual(Math.max(1920, 192 * w));
  });

  it('give back the ids of any page, cut the way snapshots cut them, at every width', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WIDTHS),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 40 }),
        (width, total, limit, page) => {
          const ids = Array.from({ length: total }, (_, i) => (i * 7919) % limitOf(width));
          const packed = ids.map((id) => String(id + offsetOf(width))).join('');
          const perChunk = idsPerChunk(width);
          const span = pageSpan(page, limit, total);
          const { first, last } = chunksOf(span, width);
          const chunks = new Map<number, string>();
          for (let c = first; c <= last; c++) chunks.set(c, packed.slice(c * perChunk * width, (c + 1) * perChunk * width));
          expect(idsAt(chunks, width, span.start, span.end)).toEqual(ids.slice(span.start, span.end));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('ranged snapshots', () => {
  it('give back the ids of any page: every id from lo to hi but the holes, in order, from one chunk row', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 400 }),
        fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        (lo, span, holeOffsets, limit, page) => {
          const hi = lo + span;
          const digits = widthFor(hi);
          // Holes anywhere between the ends, the ends too (a deleted first or last record).
          const holes = [...new Set(holeOffsets.map((h) => lo + (h % (span + 1))))].sort((a, b) => a - b);
          fc.pre(holes.length <= maxHoles(digits));
          const naive = Array.from({ length: span + 1 }, (_, i) => lo + i).filter((id) => !holes.includes(id));
          const packed = [lo, hi, ...holes].map((id) => String(id + offsetOf(digits))).join('');
          const width = rangedWidth(digits);
          const pageOf = pageSpan(page, limit, naive.length);
          // A page read finds the one chunk row as it finds any page's chunk rows.
          expect(chunksOf(pageOf, width)).toEqual({ first: 0, last: 0 });
          expect(idsAt(new Map([[0, packed]]), width, pageOf.start, pageOf.end)).toEqual(naive.slice(pageOf.start, pageOf.end));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hold lo, hi and their holes in one chunk row of packed ids at most', () => {
    for (const w of WIDTHS) expect((maxHoles(w) + 2) * w).toBeLessThanOrEqual(1920);
  });
});

describe('ids past 2^53 once offset', () => {
  it('come back exactly: at width 16 an id plus 10^15 may pass what a double holds, the id itself not', () => {
    const ids = [8_500_000_000_000_001, 8_999_999_999_999_999, 8_007_199_254_740_993, 900_000_000_000_000]; // below 9e15, the widest width's limit
    // Written as the databases write them: integer arithmetic, no doubles.
    const packed = ids.map((id) => String(BigInt(id) + BigInt(offsetOf(16)))).join('');
    expect(idsAt(new Map([[0, packed]]), 16, 0, ids.length)).toEqual(ids);
  });
});

describe('idsAscend', () => {
  it('holds exactly when every packed id is above the one before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.nat(), { maxLength: 40 }), (width, raw) => {
        const ids = raw.map((n) => n % limitOf(width));
        const packed = ids.map((id) => String(id + offsetOf(width))).join('');
        expect(idsAscend(packed, width)).toBe(ids.every((id, i) => i === 0 || id > ids[i - 1]!));
      }),
      { numRuns: 500 },
    );
    expect(idsAscend('', 3)).toBe(true);
    expect(idsAscend('100101102', 3)).toBe(true);
    expect(idsAscend('100102101', 3)).toBe(false);
    expect(idsAscend('100100', 3)).toBe(false); // the same id twice
  });
});

describe('layouts', () => {
  const layouts: Layout[] = [
    ...WIDTHS.map((digits) => ({ kind: 'packed', digits }) as const),
    ...WIDTHS.map((digits) => ({ kind: 'ranged', digits }) as const),
    { kind: 'deltas' },
    { kind: 'ascending-deltas' },
    { kind: 'lazy' },
  ];

  it('each has its own width column, which names it back', () => {
    const columns = layouts.map(columnOf);
    expect(new Set(columns).size).toBe(layouts.length);
    for (const l of layouts) expect(layoutOf(columnOf(l))).toEqual(l);
    expect(layoutOf(0)).toBeUndefined();
    expect(layoutOf(17)).toBeUndefined();
  });

  it('idsPerChunkSql gives what idsPerChunk gives, for every layout', () => {
    const db = new Database(':memory:');
    try {
      for (const l of layouts) {
        const c = columnOf(l);
        expect(db.prepare(`select ${idsPerChunkSql('?')} as n`).get(c), `${l.kind} ${c}`).toEqual({ n: idsPerChunk(c) });
      }
    } finally {
      db.close();
    }
  });
});
