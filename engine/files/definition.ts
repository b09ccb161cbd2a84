import { defineResource, integer, string, type FieldDef, type ResourceDefinition } from '../define.ts';
import type { Caller } from '../http/caller.ts';
import type { Registry } from '../registry.ts';

/** The child collection of every collection that declares `files` (SPEC 13): its records are the files' metadata. */
export const ATTACHED_FILES = 'attached_files';

/** The link of a file to its parent record, one per collection that declares files: `{collection}_id`. */
export const parentFieldOf = (collection: string): string => `${collection}_id`;

/** The fields a file's PATCH may change; the rest are the server's (SPEC 13). */
export const PATCHABLE = ['filename', 'description'] as const;

/**
 * The definition of `attached_files` for a set of definitions: undefined when none declares
 * files. One table holds every parent's files; each file links to its parent by that
 * collection's field, so the engine's child lists, creates and link checks serve it unchanged.
 */
export function attachedFilesDefinition(definitions: readonly ResourceDefinition[]): ResourceDefinition | undefined {
  const parents = definitions.filter((d) => d.files !== undefined).map((d) => d.name);
  if (parents.length === 0) return undefined;
  const links: Record<string, FieldDef> = Object.fromEntries(
    parents.map((p) => [parentFieldOf(p), integer({ nullable: true, filterable: true, parent: p })]),
  );
  return defineResource({
    name: ATTACHED_FILES,
    linkedName: 'Files',
    description: 'A file attached to a record: its metadata; the bytes are at its content path.',
    fields: {
      filename: string({ required: true, filterable: true, maxLength: 255 }),
      description: string({ nullable: true, filterable: true }),
      mime_type: string({ required: true, filterable: true, maxLength: 255 }),
      size: integer({ required: true, filterable: true }),
      sha256: string({ required: true, filterable: true, maxLength: 64 }),
      ...links,
    },
  });
}

/**
 * Whether a caller may read a collection's records in the feed: files' events need `read` on
 * every collection that declares files (a file's parent is known only per event).
 */
export function canRead(registry: Registry, caller: Pick<Caller, 'can'>, collection: string): boolean {
  if (collection !== ATTACHED_FILES) return caller.can(collection, 'read');
  return [...registry.resources.values()].every((r) => r.definition.files === undefined || caller.can(r.name, 'read'));
}
