import { fileTypeFromBuffer } from 'file-type';
import type { FilesOptions } from '../../engine/files/options.ts';
import type { FileStore } from '../../engine/files/store.ts';
import { busboyMultipart } from './multipart.ts';

/** createEngine's `files` on Node (and Bun): busboy reads uploads, file-type names their type from the leading bytes. */
export const nodeFiles = (store: FileStore, settings: Omit<FilesOptions, 'store' | 'readMultipart' | 'sniff'> = {}): FilesOptions => ({
  ...settings,
  store,
  readMultipart: busboyMultipart(),
  sniff: async (head) => (await fileTypeFromBuffer(head))?.mime,
});
