import { describe, expect, it } from 'vitest';
import { sha256Hex } from './sha256.ts';

const webCrypto = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 examples', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  // Lengths around the block and padding edges (55, 56, 63, 64, 65 bytes), several blocks, and multi-byte UTF-8.
  it.each([1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 100_000])('agrees with Web Crypto on %i bytes', async (n) => {
    const text = 'x'.repeat(n);
    expect(sha256Hex(text)).toBe(await webCrypto(text));
  });

  it('hashes the UTF-8 bytes of any text', async () => {
    for (const text of ['é', 'work order ✓ 工单', '\u{1f527} wrench', '{"a":"\\u0000"}'])
      expect(sha256Hex(text)).toBe(await webCrypto(text));
  });
});
