import { checkResource, groupOf, linkedNameOf, SYSTEM_FIELDS, type FieldDef, type ResourceDefinition } from './define.ts';
import { ATTACHED_FILES, attachedFiles } from './files/definition.ts';

/** A definition placed among the others: all its fields, its parent link and its children. */
export interface Resource {
  readonly name: string;
  readonly definition: ResourceDefinition;
  /** Every field, system fields first, in column order. */
  readonly fields: Readonly<Record<string, FieldDef>>;
  readonly fieldNames: readonly string[];
  /** Fields a client may write. */
  readonly writable: readonly string[];
  /** Fields the server sets: a client may send them only with their current value. */
  readonly readOnly: readonly string[];
  readonly filterable: readonly string[];
  /** Child collection name -> the child's field that links to this resource. */
  readonly children: ReadonlyMap<string, string>;
  /** Parent link fields of this resource, by parent resource name. */
  readonly parents: ReadonlyMap<string, string>;
  /** The path group it is served in (`''`: at the base path itself). */
  readonly group: string;
  /** Its path under the base path: `/{group}/{name}`, or `/{name}` in the group `''`. */
  readonly path: string;
  /** Its name in a parent's `$linked`. */
  readonly linkedName: string;
  /** Its events name their parent record (the one link a record holds): the engine's files' (engine/files/definition.ts). */
  readonly eventsNameParent: boolean;
  /**
   * Its records are their parents': served only under a parent record's path (no path, OpenAPI
   * tag or client type of its own) and read with the parent's read: the engine's files.
   */
  readonly underParents: boolean;
  /** `$linked` names this resource answers -> the child collection's name, in the children's order. */
  readonly linked: ReadonlyMap<string, string>;
}

export interface Registry {
  readonly resources: ReadonlyMap<string, Resource>;
  get(name: string): Resource | undefined;
  /** The first path segments under the base path that name a group (never `''`). */
  readonly groups: ReadonlySet<string>;
}

/** First segments under the base path the engine or the service serve themselves: no group or root-level collection may take them. */
export const RESERVED_SEGMENTS: readonly string[] = ['authenticate', 'batch', 'bulk', 'docs', 'events', 'openapi.json', 'tokens'];

/** Checks the definitions together and freezes them; a bad set stops the start with one line. */
export function createRegistry(declared: readonly ResourceDefinition[]): Registry {
  const byName = new Map<string, ResourceDefinition>();
  const filesCollection = attachedFiles(declared);
  const files = filesCollection?.definition;
  if (declared.some((d) => d.name === ATTACHED_FILES))
    throw new Error(`resource ${ATTACHED_FILES}: the name is the engine's, for the files of collections that declare files`);
  const definitions = files ? [...declared, files] : declared;
  for (const d of definitions) {
    const problems = checkResource(d);
    if (problems.length) throw new Error(`resource ${d.name}: ${problems[0]}`);
    if (byName.has(d.name)) throw new Error(`resource ${d.name}: defined twice`);
    byName.set(d.name, d);
  }
  const groups = new Set([...byName.values()].map(groupOf).filter((g) => g !== ''));
  for (const d of byName.values()) {
    const group = groupOf(d);
    if (RESERVED_SEGMENTS.includes(group)) throw new Error(`resource ${d.name}: group ${group} is a path the service serves itself`);
    if (group !== '') continue;
    if (RESERVED_SEGMENTS.includes(d.name))
      throw new Error(`resource ${d.name}: a root-level collection cannot take a path the service serves`);
    if (groups.has(d.name)) throw new Error(`resource ${d.name}: a root-level collection cannot share its path with the group ${d.name}`);
  }
  const children = new Map<string, Map<string, string>>([...byName.keys()].map((n) => [n, new Map()]));
  for (const d of byName.values()) {
    // Files are served under their parents by the file routes only, never as a child collection.
    if (d === files) continue;
    for (const [fieldName, f] of Object.entries(d.fields)) {
      if (f.parent === undefined) continue;
      const siblings = children.get(f.parent);
      if (!siblings) throw new Error(`resource ${d.name}: field ${fieldName}: parent ${f.parent} is not a resource`);
      if (siblings.has(d.name)) throw new Error(`resource ${d.name}: field ${fieldName}: a second parent link to ${f.parent}`);
      siblings.set(d.name, fieldName);
    }
  }
  const linked = new Map<string, Map<string, string>>();
  for (const [parent, kids] of children) {
    const names = new Map<string, string>();
    // A parent's files are linked too (`Files`), though only the file routes serve them.
    const filed = byName.get(parent)!.files === undefined ? [] : [ATTACHED_FILES];
    for (const child of [...kids.keys(), ...filed]) {
      const name = linkedNameOf(byName.get(child)!);
      if (names.has(name)) throw new Error(`resource ${child}: linked name ${name} is also ${names.get(name)}'s under ${parent}`);
      names.set(name, child);
    }
    linked.set(parent, names);
  }
  const resources = new Map<string, Resource>();
  for (const d of byName.values()) {
    const fields = Object.freeze({ ...SYSTEM_FIELDS, ...d.fields }) as Record<string, FieldDef>;
    const names = Object.keys(fields);
    const parents = new Map(Object.entries(d.fields).flatMap(([n, f]) => (f.parent === undefined ? [] : [[f.parent, n] as const])));
    resources.set(
      d.name,
      Object.freeze({
        name: d.name,
        definition: d,
        fields,
        fieldNames: Object.freeze(names),
        writable: Object.freeze(names.filter((n) => !fields[n]!.readOnly)),
        readOnly: Object.freeze(names.filter((n) => fields[n]!.readOnly)),
        filterable: Object.freeze(names.filter((n) => fields[n]!.filterable)),
        children: children.get(d.name)!,
        parents,
        group: groupOf(d),
        path: groupOf(d) === '' ? `/${d.name}` : `/${groupOf(d)}/${d.name}`,
        linkedName: linkedNameOf(d),
        eventsNameParent: filesCollection?.definition === d && filesCollection.eventsNameParent,
        underParents: filesCollection?.definition === d && filesCollection.underParents,
        linked: linked.get(d.name)!,
      }),
    );
  }
  return { resources, get: (name) => resources.get(name), groups };
}
