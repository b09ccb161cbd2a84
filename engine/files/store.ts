/**
 * Where attached files' bytes live (SPEC 13): one small interface, so the engine stays portable
 * and the host picks the store once (adapters/files: the local disk or an S3-compatible bucket).
 * Bytes are named by tenant and sha256: a tenant never reads another's bytes, and a row names its
 * bytes by the sha256 it keeps.
 */
export interface FileStore {
  /**
   * Stores a stream's bytes durably for `tenant` before resolving (a crash after it leaves at most
   * bytes no row names). Past `maxBytes` it throws FileTooLarge as soon as the count crosses and
   * keeps nothing of this call.
   */
  put(tenant: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<StoredBytes>;
  /** The bytes, whole or one inclusive range of them; undefined when the store holds none so named. */
  get(tenant: string, sha256: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /** Removes an object `list` gave, unless it is gone or was written again since (an upload of the same bytes). */
  delete(object: StoredObject): Promise<void>;
  /** Every stored object of every tenant, unfinished writes a crash left included, for the sweep of unreferenced bytes. */
  list(): AsyncIterable<StoredObject>;
}

export interface StoredBytes {
  readonly size: number;
  /** Lowercase hex. */
  readonly sha256: string;
}

export interface StoredObject {
  readonly tenant: string;
  /** Undefined for an unfinished write (a crash left it; no row can name it). */
  readonly sha256: string | undefined;
  readonly size: number;
  /** The store's own name of it. */
  readonly key: string;
  /** When it was last written, epoch milliseconds. */
  readonly modified: number;
}

/** Inclusive byte offsets, as HTTP's Range names them. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A store's refusal of bytes past the limit it was given. */
export class FileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than ${maxBytes} bytes`);
  }
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
