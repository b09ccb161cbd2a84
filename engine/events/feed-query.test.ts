import { describe, expect, it } from 'vitest';
import { valueOf } from '../errors.ts';
import { DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT, parseFeedQuery } from './feed-query.ts';

const parse = (q: string) => valueOf(parseFeedQuery(new URLSearchParams(q), new Set(['work_orders', 'notes'])));

describe('parseFeedQuery', () => {
  it('serves a $limit over the most as the most, and defaults it (SPEC 9)', () => {
    expect(parse('$limit=5000').limit).toBe(MAX_EVENTS_LIMIT);
    expect(parse(`$limit=${MAX_EVENTS_LIMIT}`).limit).toBe(MAX_EVENTS_LIMIT);
    expect(parse('$limit=7').limit).toBe(7);
    expect(parse('').limit).toBe(DEFAULT_EVENTS_LIMIT);
    expect(parse('').after).toBe(0);
  });

  it('answers 400 for a $limit of 0, below it, or not whole', () => {
    for (const bad of ['$limit=0', '$limit=-3', '$limit=2.5'])
      expect(() => parse(bad), bad).toThrow(expect.objectContaining({ status: 400 }));
  });
});
