import { EngineError, valueOf, type ProblemItem } from '../errors.ts';
import { parseIdempotencyKey, type Outcome } from '../idempotency/index.ts';
import { create } from '../operations/create.ts';
import { patch } from '../operations/update.ts';
import { writeOnce } from '../http/operation-call.ts';
import { createdAnswer, responseOf } from '../http/write-answer.ts';
import { requireParent } from '../operations/read.ts';
import { fileOf, filesOf, filesPathOf, metadataResponse, scopeOf, shownJson, type FileCall } from './file-call.ts';
import { keptFilename } from './filename.ts';
import { ifMatchOf } from './metadata-routes.ts';
import { DEFAULT_FILE_MAX_BYTES, SNIFF_BYTES, type FilesOptions } from './options.ts';
import { FileTooLarge, type StoredBytes } from './store.ts';

/** The most bytes a file of this parent may have: the host's limit, lowered by the definition's. */
const maxBytesOf = (call: FileCall, files: FilesOptions) =>
  Math.min(files.maxBytes ?? DEFAULT_FILE_MAX_BYTES, call.path.parent.definition.files?.maxBytes ?? Infinity);

const TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** A declared Content-Type as a bare type (parameters dropped), if it is one. */
const bareType = (declared: string | null | undefined) => {
  const t = declared?.split(';')[0]!.trim().toLowerCase();
  return t && TYPE.test(t) ? t : undefined;
};

const accepts = (types: readonly string[] | undefined, type: string) =>
  types === undefined || types.some((t) => t === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))));

/** Reads the leading bytes off a body, and gives the body whole again (those bytes first). */
async function headOf(body: AsyncIterable<Uint8Array>): Promise<{ head: Uint8Array; whole: AsyncIterable<Uint8Array> }> {
  const it = body[Symbol.asyncIterator]();
  const taken: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  while (length < SNIFF_BYTES) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    taken.push(next.value);
    length += next.value.byteLength;
  }
  const head = new Uint8Array(length);
  let at = 0;
  for (const chunk of taken) head.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
  async function* whole() {
    yield* taken;
    if (!ended) for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { head, whole: whole() };
}

/**
 * The type a file is kept as (SPEC 13): what its leading bytes identify, else the declared
 * type, else application/octet-stream; 415 when the parent's `types` do not take it. Then its
 * bytes stored: 413 the moment they pass the limit, nothing kept.
 */
async function storeBytes(call: FileCall, body: AsyncIterable<Uint8Array>, declared: string | undefined) {
  const files = filesOf(call);
  const { head, whole } = await headOf(body);
  if (head.byteLength === 0)
    throw new EngineError('invalid-body', 'The upload is not valid.', [
      { field: 'data', message: 'is empty: a file has at least one byte' },
    ]);
  const mime = (await files.sniff(head)) ?? bareType(declared) ?? 'application/octet-stream';
  const types = call.path.parent.definition.files?.types;
  if (!accepts(types, mime))
    throw new EngineError('unsupported-media-type', `The file is ${mime}; ${call.path.parent.name} take ${types!.join(', ')}.`);
  const maxBytes = maxBytesOf(call, files);
  try {
    const stored: StoredBytes = await files.store.put(call.ctx.tenant.key, whole, maxBytes);
    return { mime_type: mime, size: stored.size, sha256: stored.sha256 };
  } catch (e) {
    if (e instanceof FileTooLarge) throw new EngineError('body-too-large', `A file here may have at most ${maxBytes} bytes.`);
    throw e;
  }
}

/** The parts of an upload: the file's bytes stored and its metadata, or every problem with it. */
async function readUpload(call: FileCall): Promise<Record<string, unknown>> {
  const problems: ProblemItem[] = [];
  let metadata: Record<string, unknown> | undefined;
  let description: string | null = null;
  for await (const part of filesOf(call).readMultipart(call.req)) {
    if (part.name === 'description' && part.kind === 'field') description = part.value;
    else if (part.name !== 'data')
      problems.push({ field: part.name, message: 'an upload takes the parts data (the file) and description' });
    else if (part.kind !== 'file' || part.filename === undefined || metadata)
      problems.push({ field: 'data', message: 'must be one file part, with its filename' });
    else {
      const filename = keptFilename(part.filename);
      if (!filename.ok) problems.push({ field: 'filename', message: `the data part's filename ${filename.message}` });
      else if (problems.length === 0) metadata = { filename: filename.value, ...(await storeBytes(call, part.body, part.type)) };
    }
  }
  if (!metadata && !problems.some((p) => 'field' in p && (p.field === 'data' || p.field === 'filename')))
    problems.push({ field: 'data', message: 'is required: the file, as a part with a filename' });
  if (problems.length) throw new EngineError('invalid-body', 'The upload is not valid.', problems);
  return { ...metadata, description };
}

/**
 * POST: the bytes stored first, then the metadata created with its event; an acknowledged
 * upload is never lost, and a failure leaves at most bytes no row names (the sweep's). With an
 * Idempotency-Key, the fingerprint covers the bytes (their sha256).
 */
export async function uploadFile(call: FileCall): Promise<Response> {
  const { ctx, path } = call;
  await requireParent(ctx, path.parent, path.parentId);
  const key = valueOf(parseIdempotencyKey(call.req.headers.get('idempotency-key')));
  if (call.url.hasQuery) throw new EngineError('invalid-query', 'This path takes no query parameters here.');
  const body = await readUpload(call);
  const write = async (c: typeof ctx) => createdAnswer(await create(c, path.files, body, scopeOf(path)), filesPathOf(call));
  const { answer, replayed }: Outcome =
    key === undefined
      ? { answer: await write(ctx), replayed: false }
      : await writeOnce(ctx, call.deps.idempotency, { method: 'POST', pathname: call.url.pathname, sent: body, key }, write);
  // The record's JSON as shown: its content's signed link, made for this caller (never kept).
  const shown = answer.status === 201 ? await shownJson(call, answer.body, JSON.parse(answer.body).id) : answer.body;
  return responseOf({ status: answer.status, body: shown, location: answer.location, etag: answer.etag }, call.headers, replayed);
}

/** PUT of the content: the raw body is the new bytes (its Content-Type the declared type), under If-Match. */
export async function replaceContent(call: FileCall): Promise<Response> {
  const ifMatch = ifMatchOf(call);
  await fileOf(call);
  if (!call.req.body)
    throw new EngineError('invalid-body', "The body is the file's new bytes.", [{ field: 'data', message: 'is required' }]);
  const body = call.req.body as unknown as AsyncIterable<Uint8Array>;
  const stored = await storeBytes(call, body, call.req.headers.get('content-type') ?? undefined);
  return metadataResponse(call, await patch(call.ctx, call.path.files, call.path.fid, stored, ifMatch));
}
