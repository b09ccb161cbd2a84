import { EngineError, type Result } from '../errors.ts';
import { requestSlot } from './request-slot.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/**
 * Reads a JSON body without judging the request yet: the result is the parsed value or the
 * error to answer (415, 413, 400), so the caller can keep the order of checks SPEC section 1 sets.
 */
export async function readJsonBody(req: Request, limit = MAX_BODY_BYTES): Promise<Result<unknown>> {
  const type = req.headers.get('content-type') ?? '';
  if (!JSON_TYPE.test(type.trim()))
    return { error: new EngineError('unsupported-media-type', 'The body must be sent as Content-Type: application/json.') };
  const tooLarge = () => ({ error: new EngineError('body-too-large', `The body is over the limit of ${limit} bytes.`) });
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (declared > limit) return tooLarge();
  // With a Content-Length the transport already bounds the body: read it whole (the fast path);
  // without one (chunked), count while reading and stop past the limit.
  const bytes = Number.isFinite(declared) ? new Uint8Array(await req.arrayBuffer()) : await readBounded(req, limit);
  if (bytes !== undefined && bytes.byteLength > limit) return tooLarge();
  if (bytes === undefined) return tooLarge();
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return { error: new EngineError('malformed-json', 'The body is not valid UTF-8 JSON.') };
  }
}

/** Bodies read by readJsonBodyOnce, by request: a request's body can be read only once. */
const readOnce = requestSlot<Promise<Result<unknown>>>('mrs.body');

/**
 * readJsonBody, for a body that two steps of one request need (a batch's operations: the rate
 * limit counts them before the batch runs them; a request run again after a transient error):
 * read and parsed once, the same result for both.
 */
export function readJsonBodyOnce(req: Request): Promise<Result<unknown>> {
  let read = readOnce.get(req);
  if (!read) readOnce.set(req, (read = readJsonBody(req)));
  return read;
}

async function readBounded(req: Request, limit: number): Promise<Uint8Array | undefined> {
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
