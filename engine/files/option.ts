/** What a collection's attached files may be (a definition's `files`). */
export interface FilesOption {
  /** Bytes per file; may only lower the host's limit (FILE_MAX_BYTES). */
  readonly maxBytes?: number;
  /** Types accepted, as `type/subtype` or `type/*` (e.g. `image/*`, `application/pdf`); default any. */
  readonly types?: readonly string[];
}

const MEDIA_RANGE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;

/** Problems with a definition's `files`, each naming the option. */
export function filesProblems(files: FilesOption | undefined): string[] {
  if (files === undefined) return [];
  if (typeof files !== 'object' || files === null) return ['files must be an object ({} for any file)'];
  const problems = Object.keys(files)
    .filter((k) => k !== 'maxBytes' && k !== 'types')
    .map((o) => `files: option ${o} is not known`);
  if (files.maxBytes !== undefined && (!Number.isSafeInteger(files.maxBytes) || files.maxBytes < 1))
    problems.push('files.maxBytes must be a positive whole number of bytes');
  if (files.types !== undefined && (!Array.isArray(files.types) || !files.types.every((t) => typeof t === 'string' && MEDIA_RANGE.test(t))))
    problems.push('files.types must list media types like image/* or application/pdf, in lowercase');
  return problems;
}
