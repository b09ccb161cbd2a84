import { fileTypeFromBuffer } from 'file-type';
import type { FilesOptions } from '../../engine/files/options.ts';
import type { FileStore } from '../../engine/files/store.ts';
import { busboyMultipart } from './multipart.ts';
import { takeNodeBody } from './node-bodies.ts';

/**
 * createEngine's `files` on Node (and Bun): busboy reads uploads (the Node body itself where the
 * Node entry kept it), file-type names their type from the leading bytes.
 */
export const nodeFiles = (store: FileStore, settings: Omit<FilesOptions, 'store' | 'readMultipart' | 'sniff'> = {}): FilesOptions => ({
  ...settings,
  store,
  readMultipart: busboyMultipart(takeNodeBody),
  sniff: async (head) => (await fileTypeFromBuffer(head))?.mime,
});
