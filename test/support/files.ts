import type { Harness, Reply } from './harness.ts';

/** A PNG's leading bytes (its signature and IHDR), enough for its type to be sniffed. */
export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/** A file's bytes as a multipart body's `data` part, with an optional description and more parts. */
export function form(bytes: Uint8Array | string, filename: string, extra: Record<string, string> = {}, type?: string): FormData {
  const f = new FormData();
  f.append('data', new Blob([bytes as BlobPart], type ? { type } : {}), filename);
  for (const [name, value] of Object.entries(extra)) f.append(name, value);
  return f;
}

/** Sends any body (FormData, bytes, a stream) through the harness's app, with its token. */
export async function send(
  h: Harness,
  method: string,
  path: string,
  body?: BodyInit,
  headers: Record<string, string> = {},
): Promise<Reply & { bytes: Buffer }> {
  const res = await h.service.app.request(path, {
    method,
    headers: { ...h.authHeaders(), ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed, text, bytes };
}

export const upload = (h: Harness, parentPath: string, body: FormData, headers?: Record<string, string>) =>
  send(h, 'POST', `${parentPath}/attached_files`, body, headers);
