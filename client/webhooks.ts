/** A delivery whose signature or timestamp does not hold. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const base64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Compares in time that does not depend on where the strings first differ. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const header = (headers: Headers | Record<string, string | string[] | undefined>, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the secret's base64
 * after `whsec_`) and answers its event. Throws WebhookVerificationError otherwise; a timestamp
 * more than `toleranceS` (default 300) from now is refused, against replays.
 */
export async function verifyWebhook<E = unknown>(
  secret: string,
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  options: { toleranceS?: number; now?: number } = {},
): Promise<E> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceS ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is too old or too new');
  const key = await crypto.subtle.importKey('raw', bytesOf(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const expected = base64(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const match = signatures.split(' ').some((s) => {
    const [version, signature] = s.split(',');
    return version === 'v1' && signature !== undefined && same(signature, expected);
  });
  if (!match) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body) as E;
}
