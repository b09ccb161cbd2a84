import { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { EngineError } from '../../engine/errors.ts';
import type { MultipartPart, ReadMultipart } from '../../engine/files/options.ts';

const malformed = (why: string) => new EngineError('invalid-request', `The multipart body is malformed or cut short: ${why}.`);

/** Room for a description and a few more parts; a file's bytes are never held. */
const LIMITS = { fieldSize: 64 * 1024, fields: 20, files: 5, parts: 25 };

/**
 * `multipart/form-data` read by busboy (its maintained fork), part after part as they arrive:
 * a file part's bytes flow on only as they are read, so a file is never held whole. `nodeBody`:
 * the request's body as a Node stream where the host has it (node-bodies.ts), else the
 * Request's own body is read.
 */
export const busboyMultipart =
  (nodeBody: (req: Request) => Readable | undefined = () => undefined): ReadMultipart =>
  (req) => ({ [Symbol.asyncIterator]: () => partsOf(req, nodeBody(req)) });

async function* partsOf(req: Request, node: Readable | undefined): AsyncGenerator<MultipartPart> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw new EngineError('unsupported-media-type', 'An upload is multipart/form-data, with a part named data (the file).');
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({ headers: { 'content-type': type }, limits: LIMITS });
  } catch (e) {
    throw malformed((e as Error).message);
  }
  const queue: (MultipartPart | EngineError | null)[] = [];
  let wake: (() => void) | undefined;
  const push = (item: MultipartPart | EngineError | null) => {
    queue.push(item);
    wake?.();
  };
  // The part being read: a body that breaks off (the client gone) ends it with the error, as busboy never hears of it.
  let part: Readable | undefined;
  parser.on('file', (name: string, stream: Readable, filename: string | undefined, _encoding: string, mimeType: string) => {
    part = stream;
    // Held from the start: busboy emits a cut-short part's error on its stream, which, before its
    // reader listens, would be thrown uncaught and leave the part never ended.
    const failed: { error?: Error } = {};
    stream.on('error', (e: Error) => (failed.error ??= e));
    push({ kind: 'file', name, filename, type: mimeType || undefined, body: guarded(stream, failed) });
  });
  parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) =>
    push(valueTruncated ? malformed(`part ${name} is longer than ${LIMITS.fieldSize} bytes`) : { kind: 'field', name, value }),
  );
  for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'])
    parser.on(limit, () => push(malformed(`more than ${LIMITS.parts} parts, or ${LIMITS.files} files`)));
  parser.on('error', (e: unknown) => push(malformed((e as Error).message ?? String(e))));
  parser.on('finish', () => push(null));
  const source = node ?? webSource(req);
  const failed = (e: unknown) => {
    push(malformed((e as Error).message));
    part?.destroy(e as Error);
  };
  source.on('error', failed);
  // A body already broken off (the client left before it was read) emits nothing more.
  if (source.destroyed && !source.readableEnded) failed(source.errored ?? new Error('the connection closed'));
  else source.pipe(parser);
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((done) => (wake = done));
      wake = undefined;
      const item = queue.shift()!;
      if (item === null) return;
      if (item instanceof EngineError) throw item;
      yield item;
      // A file part left unread would stall the parser: drain what the reader did not take.
      if (item.kind === 'file') for await (const _ of item.body);
    }
  } finally {
    source.unpipe(parser);
    source.off('error', failed);
    // The host's own stream is the host's: what is left of it is drained or cut there.
    if (!node) source.destroy();
  }
}

/** The Request's own body as a Node stream; it reads ahead up to 1 MiB: the 16 KiB default stalls a big upload on every chunk. */
const webSource = (req: Request): Readable =>
  req.body ? Readable.fromWeb(req.body as import('node:stream/web').ReadableStream, { highWaterMark: 1024 * 1024 }) : Readable.from([]);

/** A file part's bytes; a body that breaks off mid-file is the client's error (400), never the store's. */
async function* guarded(stream: Readable, failed: { readonly error?: Error }): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (e) {
    throw malformed((e as Error).message);
  }
  if (failed.error) throw malformed(failed.error.message);
  if ((stream as Readable & { truncated?: boolean }).truncated) throw malformed('a file part was cut short');
}
