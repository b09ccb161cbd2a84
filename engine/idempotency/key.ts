import { EngineError, type Result } from '../errors.ts';
import { sha256Hex } from './sha256.ts';

/** What identifies a keyed request: its user, its key, and the hash of what it asked. */
export interface KeyedRequest {
  readonly owner: string;
  readonly key: string;
  readonly fingerprint: string;
}

// 1 to 255 visible ASCII characters (SPEC 10).
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key: undefined when none was sent, a 400 naming the header when malformed. */
export function parseIdempotencyKey(value: string | null): Result<string | undefined> {
  if (value === null || KEY.test(value)) return { value: value ?? undefined };
  return {
    error: new EngineError('invalid-request', 'The Idempotency-Key header is malformed.', [
      { header: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters (no spaces)' },
    ]),
  };
}

/** JSON with object keys sorted at every depth, so bodies that differ only in key order are the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of the method, the path and the canonical body; `hash` a faster SHA-256 where the host has one (IdempotencySettings). */
export function fingerprintOf(method: string, path: string, body: unknown, hash: (text: string) => string = sha256Hex): string {
  return hash(`${method}\n${path}\n${canonicalJson(body)}`);
}
