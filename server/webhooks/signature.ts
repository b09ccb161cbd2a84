import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks signing (https://www.standardwebhooks.com): what a receiver's library checks. */

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** The headers of one delivery: `webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature`. */
export function signedHeaders(secret: string, id: string, timestampS: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampS), 'webhook-signature': `v1,${signature}` };
}
