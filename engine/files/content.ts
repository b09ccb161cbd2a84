import { EngineError, valueOf } from '../errors.ts';
import { noneMatchMatches, parseCondition } from '../http/conditional.ts';
import { joinHeaders } from '../http/headers.ts';
import { fileOf, filesOf, type FileCall } from './file-call.ts';
import { rangeAsked } from './range.ts';

/** Types a browser would render as a page or run as a script: always an attachment (SPEC 13). */
const ACTIVE =
  /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[a-z]+\/[a-z0-9.+-]*\+xml|text\/javascript|application\/javascript|application\/ecmascript|text\/ecmascript|application\/x-javascript)$/;

/** Content-Disposition (RFC 6266): a plain filename where ASCII holds it, `filename*` (RFC 8187) beside it where not. */
export function dispositionOf(filename: string, mimeType: string): string {
  const how = ACTIVE.test(mimeType) ? 'attachment' : 'inline';
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === filename) return `${how}; filename="${ascii}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${how}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Every content answer: never run by a browser on the API's origin. */
const GUARDED = { 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox', 'accept-ranges': 'bytes' };

/** GET and HEAD of a file's bytes: exactly as stored, one Range at most, If-None-Match against the sha256. */
export async function readContent(call: FileCall): Promise<Response> {
  const { record } = await fileOf(call);
  const size = record.size as number;
  const sha256 = record.sha256 as string;
  const mime = record.mime_type as string;
  const noneMatch = valueOf(parseCondition('If-None-Match', call.req.headers.get('if-none-match')));
  const etag = `"${sha256}"`;
  const common = joinHeaders(call.headers, GUARDED, { etag });
  if (noneMatch && noneMatchMatches(noneMatch, etag)) return new Response(null, { status: 304, headers: common });
  const asked = rangeAsked(call.req.headers.get('range'), size);
  if (asked.kind === 'unsatisfiable')
    throw new EngineError(
      'range-not-satisfiable',
      `The file has ${size} bytes.`,
      [{ header: 'Range', message: 'names no byte of the file' }],
      {
        ...GUARDED,
        'content-range': `bytes */${size}`,
      },
    );
  const headers = joinHeaders(common, {
    'content-type': mime,
    'content-disposition': dispositionOf(record.filename as string, mime),
  });
  const range = asked.kind === 'range' ? asked.range : undefined;
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  headers['content-length'] = String(range ? range.end - range.start + 1 : size);
  const status = range ? 206 : 200;
  if (call.req.method === 'HEAD' || size === 0) return new Response(null, { status, headers });
  const body = await filesOf(call).store.get(call.ctx.tenant.key, sha256, range);
  if (!body) throw new EngineError('internal', `The bytes of ${call.path.files.name} ${call.path.fid} are missing from the store.`);
  return new Response(body, { status, headers });
}
