import type { Transport } from './transport.ts';

/** An attached file's metadata. */
export interface FileRecord {
  readonly id: number;
  readonly created: string;
  readonly updated: string;
  readonly deleted: boolean;
  readonly filename: string;
  readonly description: string | null;
  readonly mime_type: string;
  readonly size: number;
  readonly sha256: string;
  readonly content_url: string;
  readonly [link: string]: unknown;
}

/** A download: the bytes as a stream, with what the answer said of them. */
export interface Download {
  /** 200 for the whole file, 206 for a range. */
  readonly status: number;
  readonly body: ReadableStream<Uint8Array>;
  readonly contentType: string | null;
  /** `bytes <first>-<last>/<size>` for a range. */
  readonly contentRange: string | null;
  readonly etag: string | null;
}

export interface UploadOptions {
  /** Default: the path's last segment, the Blob's name, else `file`. */
  readonly filename?: string;
  readonly description?: string;
  readonly contentType?: string;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

const quote = (s: string) => s.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c));

/** A multipart body streamed from a stream: its parts' heads, the bytes as they come, the end. */
function multipartStream(source: ReadableStream<Uint8Array>, filename: string, type: string, description?: string) {
  const boundary = `mrs-${crypto.randomUUID()}`;
  const text = new TextEncoder();
  let head = '';
  if (description !== undefined) head += `--${boundary}\r\ncontent-disposition: form-data; name="description"\r\n\r\n${description}\r\n`;
  head += `--${boundary}\r\ncontent-disposition: form-data; name="data"; filename="${quote(filename)}"\r\ncontent-type: ${type}\r\n\r\n`;
  const reader = source.getReader();
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) return ((started = true), controller.enqueue(text.encode(head)));
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      controller.enqueue(text.encode(`\r\n--${boundary}--\r\n`));
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** A path's file as a Blob that reads it as sent (Node and Bun only; imported only when used). */
async function blobOfPath(path: string): Promise<Blob> {
  const fs = 'node:fs';
  const { openAsBlob } = (await import(/* @vite-ignore */ fs)) as { openAsBlob(path: string): Promise<Blob> };
  return openAsBlob(path);
}

/** The attached files of one record: `collection.files(id)`. */
export class Files {
  constructor(
    private readonly transport: Transport,
    readonly path: string,
  ) {}

  async list(): Promise<FileRecord[]> {
    return (await this.transport.send('GET', this.path)).json();
  }

  /**
   * Uploads a Blob, a stream or (Node, Bun) a path. A Blob or a path is sent again on a retry with
   * the same Idempotency-Key; a stream cannot be read twice, so it is sent once.
   */
  async upload(source: Blob | ReadableStream<Uint8Array> | string, options: UploadOptions = {}): Promise<FileRecord> {
    const common = {
      ...(options.signal ? { signal: options.signal } : {}),
      headers: (options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}) as Record<string, string>,
    };
    if (source instanceof ReadableStream) {
      const { body, type } = multipartStream(
        source,
        options.filename ?? 'file',
        options.contentType ?? 'application/octet-stream',
        options.description,
      );
      const res = await this.transport.send('POST', this.path, {
        ...common,
        body,
        retry: false,
        headers: { ...common.headers, 'content-type': type },
      });
      return res.json();
    }
    const blob = typeof source === 'string' ? await blobOfPath(source) : source;
    const named = typeof source === 'string' ? source.split(/[\\/]/).pop() : (blob as Blob & { name?: string }).name;
    const form = new FormData();
    if (options.description !== undefined) form.set('description', options.description);
    const typed = options.contentType ? new Blob([blob], { type: options.contentType }) : blob;
    form.set('data', typed, options.filename ?? named ?? 'file');
    return (await this.transport.send('POST', this.path, { ...common, body: form })).json();
  }

  async get(fileId: number): Promise<FileRecord> {
    return (await this.transport.send('GET', `${this.path}/${fileId}`)).json();
  }

  /** The bytes, as a stream; `range: [first, last?]` asks for part of them (206). */
  async download(fileId: number, options: { range?: readonly [number, number?]; signal?: AbortSignal } = {}): Promise<Download> {
    const { range } = options;
    const headers: Record<string, string> = range ? { range: `bytes=${range[0]}-${range[1] ?? ''}` } : {};
    const res = await this.transport.send('GET', `${this.path}/${fileId}/content`, {
      headers,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const h = res.headers;
    return {
      status: res.status,
      body: res.body!,
      contentType: h.get('content-type'),
      contentRange: h.get('content-range'),
      etag: h.get('etag'),
    };
  }
}
