import type { Registry, Resource } from '../registry.ts';
import { ATTACHED_FILES, parentFieldOf } from './definition.ts';

export type FilePathKind = 'files' | 'file' | 'content';

/** A path under a record's files: its parent, and the file (and its content) when named. */
export interface FilePath {
  readonly kind: FilePathKind;
  readonly parent: Resource;
  readonly parentId: number;
  /** The file's link to its parent. */
  readonly field: string;
  readonly files: Resource;
  /** 0 on the list's path. */
  readonly fid: number;
}

/** Every method of each path, HEAD beside GET. */
export const FILE_METHODS: Record<FilePathKind, readonly string[]> = {
  files: ['GET', 'HEAD', 'POST'],
  file: ['GET', 'HEAD', 'PATCH', 'DELETE'],
  content: ['GET', 'HEAD', 'PUT'],
};

const ID = /^[1-9]\d{0,15}$/;
const idOf = (s: string | undefined) => (s !== undefined && ID.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : undefined);

/**
 * `[{group}/]{collection}/{id}/attached_files[/{fid}[/content]]` (segments after the base path):
 * `none` when the path is not about files, `not-found` when it is but names nothing served
 * (the files of a collection that declares none). `attached_files` on its own is served nowhere
 * (route-table.ts).
 */
export function matchFilePath(registry: Registry, segments: readonly string[]): FilePath | 'none' | 'not-found' {
  // Most requests are not about files: two comparisons say so.
  if (segments[2] !== ATTACHED_FILES && segments[3] !== ATTACHED_FILES) return 'none';
  const inGroup = segments[0] !== undefined && registry.groups.has(segments[0]);
  const under = inGroup ? segments.slice(1) : segments;
  if (under[2] !== ATTACHED_FILES) return 'none';
  const [collection, idText, , fidText, content, ...rest] = under;
  const parent = registry.get(collection!);
  const files = registry.get(ATTACHED_FILES);
  const parentId = idOf(idText);
  if (!parent || parent.group !== (inGroup ? segments[0] : '')) return 'none';
  if (!files || parent.definition.files === undefined || parentId === undefined || rest.length > 0) return 'not-found';
  const field = parentFieldOf(parent.name);
  if (fidText === undefined) return { kind: 'files', parent, parentId, field, files, fid: 0 };
  const fid = idOf(fidText);
  if (fid === undefined || (content !== undefined && content !== 'content')) return 'not-found';
  return { kind: content === undefined ? 'file' : 'content', parent, parentId, field, files, fid };
}

/** Whether a path after the base path (as sent) is about attached files. */
export const isFilePath = (registry: Registry, rest: string): boolean => matchFilePath(registry, rest.split('/')) !== 'none';
