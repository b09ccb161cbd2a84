import { describe, expect, it } from 'vitest';
import { bearerToken, unauthorized } from './challenge.ts';

const req = (authorization?: string) => new Request('http://x/', authorization === undefined ? {} : { headers: { authorization } });

describe('bearerToken', () => {
  it.each([
    [undefined, null],
    ['Basic abc', null],
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer   abc', 'abc'],
    ['Bearer', ''],
    ['Bearer ', ''],
    ['Bearerabc', null],
  ])('%j -> %j', (header, token) => expect(bearerToken(req(header))).toBe(token));
});

describe('unauthorized', () => {
  it('challenges with a bare Bearer when no token was sent, invalid_token when one was', () => {
    expect(unauthorized(false).headers['www-authenticate']).toBe('Bearer');
    expect(unauthorized(true).headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(unauthorized(true).status).toBe(401);
  });
});
