import { describe, expect, it } from 'vitest';
import { jsonOf, nextTimestamp } from './records.ts';

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

describe('jsonOf', () => {
  it('is the JSON its write made, or JSON.stringify of the record; the version is never a field', () => {
    const record = { id: 7, note: 'a "quoted" \u2028 note', done: false, due: null };
    expect(jsonOf({ record, version: 3 })).toBe(JSON.stringify(record));
    expect(jsonOf({ record, version: 3, json: '{"id":7}' })).toBe('{"id":7}');
    expect(Object.keys(record)).toEqual(['id', 'note', 'done', 'due']);
  });
});
