/** Authentication for benchmarks against a running `mrs serve`: user admin of demo.main. */

const BASE = '/v4_server/external/v1';

/** `Authorization: Bearer ...` for the token an API key gets from POST /authenticate. */
export async function bearer(origin: string, apiKey: string): Promise<Record<string, string>> {
  const res = await fetch(`${origin}${BASE}/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey, client_db: 'demo.main', username: 'admin' }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`authenticate failed: ${JSON.stringify(body)}`);
  return { authorization: `Bearer ${body.access_token}` };
}
