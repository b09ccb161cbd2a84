import { describe, expect, it } from 'vitest';
import { nextTimestamp } from './records.ts';

describe('nextTimestamp', () => {
  it('is now when the previous stamp is in the past', () => {
    const before = Date.now();
    const t = Date.parse(nextTimestamp('2000-01-01T00:00:00.000Z'));
    expect(t).toBeGreaterThanOrEqual(before);
  });

  it('is one millisecond after a previous stamp the clock has not passed', () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(Date.parse(nextTimestamp(future))).toBe(Date.parse(future) + 1);
    expect(nextTimestamp(future)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('is now when there is no previous stamp', () => {
    expect(Number.isNaN(Date.parse(nextTimestamp(null)))).toBe(false);
  });
});
