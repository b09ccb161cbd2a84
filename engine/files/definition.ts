import { defineResource, integer, string, type FieldDef, type ResourceDefinition } from '../define.ts';
import type { Caller } from '../http/caller.ts';
import type { Registry } from '../registry.ts';

/** The child collection of every collection that declares `files` (SPEC 13): its records are the files' metadata. */
export const ATTACHED_FILES = 'attached_files';

/** The `$linked` name of a record's attached files. */
export const FILES_LINKED_NAME = 'Files';

/** The link of a file to its parent record, one per collection that declares files: `{collection}_id`. */
export const parentFieldOf = (collection: string): string => `${collection}_id`;

/** The fields a file's PATCH may change; the rest are the server's (SPEC 13). */
export const PATCHABLE = ['filename', 'description'] as const;

/** A collection the engine adds to the declared ones: its definition, and what the registry's Resource carries beside it. */
export interface EngineCollection {
  readonly definition: ResourceDefinition;
  /** Its events name their parent record (Resource.eventsNameParent). */
  readonly eventsNameParent: boolean;
  /** Its records are reached under their parent's and read with the parent's read (Resource.underParents). */
  readonly underParents: boolean;
}

/**
 * `attached_files` for a set of definitions: undefined when none declares files. One table
 * holds every parent's files; each file links to its parent by that collection's field, so the
 * engine's child lists, creates and link checks serve it unchanged. A file's events name its
 * parent, by which the feed shows them to those who may read the parent's collection (SPEC 13).
 */
export function attachedFiles(definitions: readonly ResourceDefinition[]): EngineCollection | undefined {
  const parents = definitions.filter((d) => d.files !== undefined).map((d) => d.name);
  if (parents.length === 0) return undefined;
  const links: Record<string, FieldDef> = Object.fromEntries(
    parents.map((p) => [parentFieldOf(p), integer({ nullable: true, filterable: true, parent: p })]),
  );
  const definition = defineResource({
    name: ATTACHED_FILES,
    linkedName: FILES_LINKED_NAME,
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
  return { definition, eventsNameParent: true, underParents: true };
}

/** What of the change feed a caller may read: collections, and the parents of files' events (undefined: no limit). */
export interface FeedScope {
  readonly collections: readonly string[] | undefined;
  readonly parents: readonly string[] | undefined;
}

/**
 * The feed a caller may read (SPEC 9, 13): the collections its roles may read; a file's event
 * when it may read the file's parent's collection.
 */
export function readableFeed(registry: Registry, caller: Pick<Caller, 'can'>): FeedScope {
  const parents = [...registry.resources.values()].filter((r) => r.definition.files !== undefined).map((r) => r.name);
  const readableParents = parents.filter((p) => caller.can(p, 'read'));
  const resources = [...registry.resources.values()];
  const collections = resources
    .filter((r) => (r.underParents ? readableParents.length > 0 : caller.can(r.name, 'read')))
    .map((r) => r.name);
  return {
    collections: collections.length === resources.length ? undefined : collections,
    parents: readableParents.length === parents.length ? undefined : readableParents,
  };
}
