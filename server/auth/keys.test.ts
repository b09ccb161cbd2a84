import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, keyIdOf, keyMatches } from './keys.ts';

describe('API keys', () => {
  it('look like mrs_<id>_<secret>: a 16-character id and a 43-character base62 secret (over 128 bits)', () => {
    const { key, keyId, hash } = generateKey();
    expect(key).toMatch(/^mrs_[A-Za-z0-9]{16}_[A-Za-z0-9]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThan(128);
    expect(keyIdOf(key)).toBe(keyId);
    expect(hash).toBe(hashKey(key));
    expect(hash).not.toContain(key.split('_')[2]);
  });

  it('are different every time', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey().key));
    const ids = new Set([...keys].map((k) => keyIdOf(k)));
    expect(keys.size).toBe(2000);
    expect(ids.size).toBe(2000);
  });

  it.each([
    ['hunter2', undefined],
    ['mrs__abc', undefined],
    ['mrs_abc_', undefined],
    ['mrs_a-b_secret', undefined],
    ['xmrs_abc_def', undefined],
    ['mrs_abc_def_ghi', undefined],
    ['mrs_abc_def', 'abc'],
  ])('keyIdOf(%j) is %j', (key, id) => expect(keyIdOf(key)).toBe(id));

  it('match only their own hash', () => {
    const a = generateKey();
    const b = generateKey();
    expect(keyMatches(a.key, a.hash)).toBe(true);
    expect(keyMatches(b.key, a.hash)).toBe(false);
    expect(keyMatches(a.key.slice(0, -1) + (a.key.endsWith('A') ? 'B' : 'A'), a.hash)).toBe(false);
    expect(keyMatches(a.key, '')).toBe(false);
    expect(keyMatches(a.key, 'zz')).toBe(false);
  });
});
