import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EngineError, problemsOf } from '../errors.ts';
import { canonicalJson, fingerprintOf, parseIdempotencyKey } from './key.ts';

describe('idempotency keys', () => {
  it.each(['a', 'x'.repeat(255), '6f1c2d9e-0b7a-4c1e-9f00-1a2b3c4d5e6f', '!~"\\'])('takes %j', (key) =>
    expect(parseIdempotencyKey(key)).toEqual({ value: key }),
  );

  it.each(['', ' ', 'a b', 'x'.repeat(256), 'é', 'tab\there', 'nl\n'])('refuses %j naming the header', (key) => {
    const r = parseIdempotencyKey(key);
    expect('error' in r && r.error).toBeInstanceOf(EngineError);
    expect(problemsOf(r)).toEqual([{ header: 'Idempotency-Key', message: expect.any(String) }]);
  });

  it('is undefined when none was sent', () => expect(parseIdempotencyKey(null)).toEqual({ value: undefined }));

  it('canonical JSON sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });

  it('a fingerprint tells method, path and body apart, and not key order', async () => {
    const base = await fingerprintOf('POST', '/m/work_orders', { a: 1, b: 2 });
    expect(await fingerprintOf('POST', '/m/work_orders', { b: 2, a: 1 })).toBe(base);
    for (const other of [
      await fingerprintOf('PATCH', '/m/work_orders', { a: 1, b: 2 }),
      await fingerprintOf('POST', '/m/notes', { a: 1, b: 2 }),
      await fingerprintOf('POST', '/m/work_orders', { a: 1, b: 3 }),
    ])
      expect(other).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the host’s native SHA-256 (the service passes node:crypto’s) gives the same fingerprints: kept keys still replay', () => {
    const native = (text: string) => createHash('sha256').update(text).digest('hex');
    for (const body of [
      {},
      { a: 1, b: 'é ✓ \u{1f527}' },
      { operations: [{ method: 'POST', path: '/maintenance/notes', body: { note: 'x'.repeat(5000) } }] },
    ])
      expect(fingerprintOf('POST', '/v4_server/external/v1/batch', body, native)).toBe(
        fingerprintOf('POST', '/v4_server/external/v1/batch', body),
      );
  });
});
