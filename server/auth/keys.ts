import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `mrs_<key-id>_<secret>`. The key id is public: it names the key (in
 * `mrs key list` and `revoke`) and finds its row without a scan. The secret is 256 random bits.
 */
const KEY = /^mrs_([A-Za-z0-9]{1,64})_([A-Za-z0-9]{1,128})$/;
export const KEY_ID = /^[A-Za-z0-9]{1,64}$/;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` uniform base62 characters (bytes >= 248 are dropped, so there is no modulo bias). */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export interface NewKey {
  readonly keyId: string;
  /** The whole key, shown once and never stored. */
  readonly key: string;
  readonly hash: string;
}

/** 16 characters of id (~95 bits, unique in practice; the primary key enforces it) and 43 of secret (~256 bits). */
export function generateKey(): NewKey {
  const keyId = base62(16);
  const key = `mrs_${keyId}_${base62(43)}`;
  return { keyId, key, hash: hashKey(key) };
}

/** The key id of a well-formed key, or undefined. */
export function keyIdOf(key: string): string | undefined {
  return KEY.exec(key)?.[1];
}

/**
 * SHA-256 (hex) of the whole key. A fast hash is enough because the secret has 256 random bits:
 * there is no dictionary to try, so a slow password hash would add cost and no safety. Hashing
 * the whole key binds the secret to its key id.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `key` hashes to `storedHash`, compared in constant time. */
export function keyMatches(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashKey(key), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
