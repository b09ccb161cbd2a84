import type { Registry, Resource } from '../registry.ts';
import { requestSlot } from './request-slot.ts';

export type Action = 'read' | 'create' | 'update' | 'delete';
export type OperationName = 'list' | 'create' | 'read' | 'replace' | 'patch' | 'softDelete' | 'childList' | 'childCreate';
export type PathKind = 'collection' | 'record' | 'child' | 'childRecord' | 'bulkCollection' | 'bulkRecord';

const RECORD = {
  GET: { op: 'read', action: 'read' },
  PUT: { op: 'replace', action: 'update' },
  PATCH: { op: 'patch', action: 'update' },
  DELETE: { op: 'softDelete', action: 'delete' },
} as const;

/** Every path shape, its methods, the operation each runs and the permission it needs. */
export const ROUTES: Record<PathKind, Readonly<Record<string, { op: OperationName; action: Action }>>> = {
  collection: { GET: { op: 'list', action: 'read' }, POST: { op: 'create', action: 'create' } },
  record: RECORD,
  child: { GET: { op: 'childList', action: 'read' }, POST: { op: 'childCreate', action: 'create' } },
  // `{parent path}/{id}/{child}/{child_id}`: the child's own record path, once it is known to belong to the parent.
  childRecord: RECORD,
  bulkCollection: { GET: { op: 'list', action: 'read' } },
  bulkRecord: { GET: { op: 'read', action: 'read' } },
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
const notFound = { found: false } as const;

/** Resolves the segments after `{base}/` to a route, or not found. */
export function matchPath(registry: Registry, segments: readonly string[]): Match {
  if (segments[0] !== 'bulk') return matchCollection(registry, segments);
  const match = matchCollection(registry, segments.slice(1));
  if (!match.found || (match.kind !== 'collection' && match.kind !== 'record')) return notFound;
  return { ...match, kind: match.kind === 'collection' ? 'bulkCollection' : 'bulkRecord' };
}

/** A collection's paths: `[{group}/]{collection}[/{id}[/{child}[/{child_id}]]]`. */
function matchCollection(registry: Registry, segments: readonly string[]): Match {
  const inGroup = segments[0] !== undefined && registry.groups.has(segments[0]);
  const [collection, idText, childName, childIdText, ...rest] = inGroup ? segments.slice(1) : segments;
  const resource = collection === undefined ? undefined : registry.get(collection);
  if (!resource || rest.length > 0 || resource.group !== (inGroup ? segments[0] : '') || resource.underParents) return notFound;
  if (idText === undefined) return { found: true, kind: 'collection', resource, id: undefined, parent: undefined };
  const id = parseId(idText);
  if (id === undefined) return notFound;
  if (childName === undefined) return { found: true, kind: 'record', resource, id, parent: undefined };
  const field = resource.children.get(childName);
  const child = field === undefined ? undefined : registry.get(childName);
  if (!child || field === undefined) return notFound;
  const parent = { resource, id, field };
  if (childIdText === undefined) return { found: true, kind: 'child', resource: child, id: undefined, parent };
  const childId = parseId(childIdText);
  return childId === undefined ? notFound : { found: true, kind: 'childRecord', resource: child, id: childId, parent };
}

/** matchPath for the part of a path after `{base}/`, as it came (percent-encoded segments). */
export const matchEncoded = (registry: Registry, rest: string): Match => matchPath(registry, rest.split('/').map(decodeOrKeep));

/** A match's route pattern under the base path (`/maintenance/work_orders/{id}/notes`): names from the registry, ids as `{id}`. */
export function patternOf(match: Match & { found: true }): string {
  const bulk = match.kind === 'bulkCollection' || match.kind === 'bulkRecord' ? '/bulk' : '';
  if (match.parent === undefined) return `${bulk}${match.resource.path}${match.id === undefined ? '' : '/{id}'}`;
  return `${match.parent.resource.path}/{id}/${match.resource.name}${match.kind === 'childRecord' ? '/{child_id}' : ''}`;
}

/** The first segments under `{base}/` the engine serves collections at: groups, root-level collections and `bulk`. */
export const servedSegments = (registry: Registry): string[] => [
  ...registry.groups,
  ...[...registry.resources.values()].filter((r) => r.group === '').map((r) => r.name),
  'bulk',
];

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
const METHODS = Object.fromEntries(Object.keys(ROUTES).map((k) => [k, methodsOf(k as PathKind)])) as Record<PathKind, readonly string[]>;
export const allowedMethods = (kind: PathKind): readonly string[] => METHODS[kind];
export const allowHeader = (kind: PathKind) => METHODS[kind].join(', ');

/**
 * The route a method takes on a path shape. HEAD runs GET's operation (SPEC 1: the same status
 * and headers); the fetch host drops the body (Hono's fetch does it for every HEAD).
 */
export const routeFor = (kind: PathKind, method: string) => ROUTES[kind][method === 'HEAD' ? 'GET' : method];
