import { ATTACHED_FILES } from '../files/definition.ts';
import type { Registry, Resource } from '../registry.ts';
import { requestSlot } from './request-slot.ts';

export type Action = 'read' | 'create' | 'update' | 'delete';
export type OperationName = 'list' | 'create' | 'read' | 'replace' | 'patch' | 'softDelete' | 'childList' | 'childCreate';
type PathKind = 'collection' | 'record' | 'child';

/** Every path shape, its methods, the operation each runs and the permission it needs. */
export const ROUTES: Record<PathKind, Readonly<Record<string, { op: OperationName; action: Action }>>> = {
  collection: { GET: { op: 'list', action: 'read' }, POST: { op: 'create', action: 'create' } },
  record: {
    GET: { op: 'read', action: 'read' },
    PUT: { op: 'replace', action: 'update' },
    PATCH: { op: 'patch', action: 'update' },
    DELETE: { op: 'softDelete', action: 'delete' },
  },
  child: { GET: { op: 'childList', action: 'read' }, POST: { op: 'childCreate', action: 'create' } },
};

export type Match =
  | { found: false }
  | {
      found: true;
      kind: PathKind;
      /** The collection the operation acts on (the child collection on child paths). */
      resource: Resource;
      id: number | undefined;
      parent: { resource: Resource; id: number; field: string } | undefined;
    };

const ID = /^[1-9]\d{0,15}$/;
const parseId = (s: string | undefined) => (s !== undefined && ID.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : undefined);

/** Resolves the segments after `/maintenance/` to a route, or not found. */
export function matchPath(registry: Registry, segments: readonly string[]): Match {
  const notFound = { found: false } as const;
  const [collection, idText, childName, ...rest] = segments;
  const resource = collection === undefined ? undefined : registry.get(collection);
  if (!resource || rest.length > 0 || resource.name === ATTACHED_FILES) return notFound;
  if (idText === undefined) return { found: true, kind: 'collection', resource, id: undefined, parent: undefined };
  const id = parseId(idText);
  if (id === undefined) return notFound;
  if (childName === undefined) return { found: true, kind: 'record', resource, id, parent: undefined };
  const field = resource.children.get(childName);
  const child = field === undefined ? undefined : registry.get(childName);
  if (!child || field === undefined) return notFound;
  return { found: true, kind: 'child', resource: child, id: undefined, parent: { resource, id, field } };
}

/** matchPath for the part of a path after `/maintenance/`, as it came (percent-encoded segments). */
export const matchEncoded = (registry: Registry, rest: string): Match => matchPath(registry, rest.split('/').map(decodeOrKeep));

function decodeOrKeep(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const matches = requestSlot<Match>('mrs.match');

/** The route the engine matched for a request it served (undefined if it has not), for route labels. */
export const matchedRoute = (req: Request): Match | undefined => matches.get(req);

/** Notes the engine's match for a request (matchedRoute). */
export const noteMatch = (req: Request, match: Match): void => matches.set(req, match);

/** A path's methods: its rows of the route table, HEAD beside GET. */
const methodsOf = (kind: PathKind): readonly string[] => Object.keys(ROUTES[kind]).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
const METHODS: Record<PathKind, readonly string[]> = {
  collection: methodsOf('collection'),
  record: methodsOf('record'),
  child: methodsOf('child'),
};
export const allowedMethods = (kind: PathKind): readonly string[] => METHODS[kind];
export const allowHeader = (kind: PathKind) => METHODS[kind].join(', ');

/**
 * The route a method takes on a path shape. HEAD runs GET's operation (SPEC 1: the same status
 * and headers); the fetch host drops the body (Hono's fetch does it for every HEAD).
 */
export const routeFor = (kind: PathKind, method: string) => ROUTES[kind][method === 'HEAD' ? 'GET' : method];
