import { describe, expect, it } from 'vitest';
import { newCursorId } from './layout.ts';

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
