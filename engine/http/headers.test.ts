import { describe, expect, it } from 'vitest';
import { joinHeaders } from './headers.ts';

describe('joinHeaders', () => {
  it('joins sets into a new object, later sets winning, missing sets skipped', () => {
    const a = { 'content-type': 'application/json', 'x-request-id': 'a' };
    const b = { 'x-request-id': 'b', ratelimit: 'r' };
    const joined = joinHeaders(a, undefined, b);
    expect(joined).toEqual({ 'content-type': 'application/json', 'x-request-id': 'b', ratelimit: 'r' });
    expect(Object.keys(joined)).toEqual(['content-type', 'x-request-id', 'ratelimit']);
    expect(joined).not.toBe(a);
    expect(a).toEqual({ 'content-type': 'application/json', 'x-request-id': 'a' });
  });

  it('takes own properties only, and nothing at all gives an empty object', () => {
    const inherited = Object.assign(Object.create({ leaked: 'x' }), { own: 'y' }) as Record<string, string>;
    expect(joinHeaders(inherited)).toEqual({ own: 'y' });
    expect(joinHeaders()).toEqual({});
  });
});
