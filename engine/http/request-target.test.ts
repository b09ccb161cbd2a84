import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestTarget } from './request-target.ts';

const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{0,12}$/);
const path = fc
  .array(fc.oneof(segment, fc.constantFrom('.', '..', '%2e', '%zz', 'a b', 'é', '$cursor')), { maxLength: 6 })
  .map((s) => '/' + s.join('/'));
const query = fc.option(fc.stringMatching(/^[A-Za-z0-9$:=&%+._~ -]{0,30}$/), { nil: undefined });

describe('RequestTarget', () => {
  it('reads the same path and query as URL parsing does, for any request URL', () => {
    fc.assert(
      fc.property(path, query, fc.option(fc.constantFrom('#frag', '#'), { nil: undefined }), (p, q, hash) => {
        const url = new Request(`http://127.0.0.1:8080${p}${q === undefined ? '' : `?${q}`}${hash ?? ''}`).url;
        const parsed = new URL(url);
        const target = new RequestTarget(url);
        expect(target.pathname).toBe(parsed.pathname);
        expect([...target.searchParams]).toEqual([...parsed.searchParams]);
        if (!target.hasQuery) expect([...parsed.searchParams]).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['http://h/', '/', []],
    ['http://h', '/', []],
    [
      'https://h:1/a/b?x=1&y=$2',
      '/a/b',
      [
        ['x', '1'],
        ['y', '$2'],
      ],
    ],
    ['http://h/a?', '/a', []],
    ['http://h/a#b?c', '/a', []],
  ])('%s', (url, pathname, params) => {
    const t = new RequestTarget(url);
    expect(t.pathname).toBe(pathname);
    expect([...t.searchParams]).toEqual(params);
    expect(t.hasQuery).toBe(params.length > 0);
  });
});
