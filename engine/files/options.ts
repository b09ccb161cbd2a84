import type { Caller } from '../http/caller.ts';
import type { FileStore } from './store.ts';

/** One part of a `multipart/form-data` body, in the order sent; a file's bytes must be read before the next part. */
export type MultipartPart =
  | { readonly kind: 'field'; readonly name: string; readonly value: string }
  | {
      readonly kind: 'file';
      readonly name: string;
      /** As sent; undefined when the part has none (a plain field). */
      readonly filename: string | undefined;
      /** The part's declared Content-Type. */
      readonly type: string | undefined;
      readonly body: AsyncIterable<Uint8Array>;
    };

/**
 * Streams a multipart body's parts, never holding a file whole. Throws (or its parts' bodies
 * throw) an EngineError: `unsupported-media-type` for a body that is not multipart, `invalid-request`
 * for one malformed or cut short.
 */
export type ReadMultipart = (req: Request) => AsyncIterable<MultipartPart>;

/** The type a file's leading bytes identify (e.g. `image/jpeg`), if any. */
export type SniffType = (head: Uint8Array) => Promise<string | undefined>;

/** createEngine's `files`: where attached files' bytes go and the host pieces that read them (adapters/files). */
export interface FilesOptions {
  readonly store: FileStore;
  readonly readMultipart: ReadMultipart;
  readonly sniff: SniffType;
  /** The most bytes a file may have (FILE_MAX_BYTES; default 50 MiB); a definition's `maxBytes` may only lower it. */
  readonly maxBytes?: number;
  /** Signs a file's `content_url` for a caller; without it, metadata carry none. The host checks the links it signed. */
  readonly links?: FileLinks;
}

/** The host's signed links to a file's content: for browsers and apps that cannot send a token. */
export interface FileLinks {
  /** A link to `path` (the content's absolute path) for this caller, or undefined when it cannot have one. */
  sign(caller: Caller, path: string): Promise<string | undefined>;
}

export const DEFAULT_FILE_MAX_BYTES = 50 * 1024 * 1024;

/** How many leading bytes the type is sniffed from (file-type reads at most about this many). */
export const SNIFF_BYTES = 4100;
