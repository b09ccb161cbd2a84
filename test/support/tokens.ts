import { SignJWT } from 'jose';
import { signingSecret } from '../../server/auth/secret.ts';
import type { Service } from '../../server/service.ts';

/** Hand-made tokens, for proving the server refuses what it did not issue as issued. */

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** The service's own signing secret (as every process on the data reads it). */
export const secretOf = (service: Service) => signingSecret(service.config.jwtSecret, service.tenants);

export interface Claims {
  sub?: unknown;
  client_db?: unknown;
  key_id?: unknown;
  iat?: number;
  exp?: number;
}

/** A token signed with `secret` (default: the service's) and `alg` (default HS256), carrying exactly `claims`. */
export async function signed(service: Service, claims: Claims, options: { secret?: string; alg?: string } = {}): Promise<string> {
  const secret = new TextEncoder().encode(options.secret ?? (await secretOf(service)));
  return new SignJWT(claims as Record<string, unknown>).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).sign(secret);
}

/** An unsecured token (`alg: none`, empty signature). */
export const unsigned = (claims: Claims) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;

/** The claims of a token, read without checking it. */
export const claimsOf = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

/** The token with its payload replaced and its original signature kept. */
export function tampered(token: string, change: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64({ ...claimsOf(token), ...change })}.${signature}`;
}

export const nowS = () => Math.floor(Date.now() / 1000);
