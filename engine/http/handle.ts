import type { CursorSettings } from '../cursor/index.ts';
import { EngineError, valueOf } from '../errors.ts';
import { create } from '../operations/create.ts';
import type { OperationContext, ParentScope } from '../operations/context.ts';
import { list } from '../operations/list.ts';
import { read, readJson, requireParent } from '../operations/read.ts';
import { softDelete } from '../operations/soft-delete.ts';
import { patch, replace } from '../operations/update.ts';
import { parseQuery } from '../query/parse.ts';
import { resolveQuery } from '../query/resolve.ts';
import type { Registry, Resource } from '../registry.ts';
import type { FeedSettings } from '../events/retention.ts';
import { readJsonBody } from './body.ts';
import { feedRoute } from './feed-route.ts';
import { joinHeaders } from './headers.ts';
import type { Caller, ResolveCaller } from './caller.ts';
import { listHeaders } from './list-headers.ts';
import { targetOf, type RequestTarget } from './request-target.ts';
import { allowHeader, matchPath, noteMatch, routeFor, type OperationName } from './route-table.ts';

export interface HandlerDeps {
  readonly registry: Registry;
  readonly basePath: string;
  readonly resolveCaller: ResolveCaller;
  readonly cursors: CursorSettings;
  readonly feed: FeedSettings;
}

interface Call {
  readonly req: Request;
  readonly url: RequestTarget;
  readonly ctx: OperationContext;
  readonly resource: Resource;
  readonly id: number;
  readonly parent: ParentScope | undefined;
  readonly deps: HandlerDeps;
  /** The caller's headers, for every answer. */
  readonly headers: Readonly<Record<string, string>>;
}

const JSON_TYPE = { 'content-type': 'application/json' };
/** Every answer carries the caller's headers (rate-limit state), set when the Response is made. */
const reply = (call: Call, body: unknown, status = 200, headers?: Record<string, string>) => replyJson(call, JSON.stringify(body), status, headers);
/** reply, for a body that is JSON text already. */
const replyJson = (call: Call, json: string, status = 200, headers?: Record<string, string>) =>
  new Response(json, { status, headers: joinHeaders(JSON_TYPE, call.headers, headers) });

/**
 * Problems found before the record was looked up are answered only once the record (or parent)
 * is known to exist, keeping SPEC's order: 404 for the record before 415, 413 and 400.
 */
async function failAfterExists(call: Call, error: EngineError | undefined, target: 'record' | 'parent'): Promise<void> {
  if (!error) return;
  // On GET (and HEAD), `$deleted=true` makes a deleted record or parent exist for this purpose too.
  const includeDeleted = (call.req.method === 'GET' || call.req.method === 'HEAD') && call.url.searchParams.get('$deleted') === 'true';
  if (target === 'parent' && call.parent) await requireParent(call.ctx, call.parent.resource, call.parent.id, includeDeleted);
  if (target === 'record') await read(call.ctx, call.resource, call.id, { includeDeleted });
  throw error;
}

function queryError(url: RequestTarget, allowed: readonly string[] = []): EngineError | undefined {
  if (!url.hasQuery) return undefined;
  const bad = [...url.searchParams.keys()].filter((k) => !allowed.includes(k));
  if (!bad.length) return undefined;
  return new EngineError(
    'invalid-query',
    'This path takes no such query parameter.',
    bad.map((parameter) => ({ parameter, message: allowed.length ? `only ${allowed.join(', ')} is allowed here` : 'no query parameters are allowed here' })),
  );
}

async function body(call: Call, target: 'record' | 'parent' | 'none'): Promise<unknown> {
  const b = await readJsonBody(call.req);
  const error = 'error' in b ? b.error : queryError(call.url);
  if (target !== 'none') await failAfterExists(call, error, target);
  if (error) throw error;
  return valueOf(b);
}

const OPERATIONS: Record<OperationName, (call: Call) => Promise<Response>> = {
  list: (call) => listResponse(call),
  childList: (call) => listResponse(call),
  read: async (call) => {
    const deleted = call.url.hasQuery ? call.url.searchParams.get('$deleted') : null;
    const error =
      queryError(call.url, ['$deleted']) ??
      (deleted !== null && deleted !== 'true' && deleted !== 'false'
        ? new EngineError('invalid-query', 'The query is not valid.', [{ parameter: '$deleted', message: '$deleted must be true or false' }])
        : undefined);
    await failAfterExists(call, error, 'record');
    return replyJson(call, await readJson(call.ctx, call.resource, call.id, { includeDeleted: deleted === 'true' }));
  },
  create: async (call) => created(call, await create(call.ctx, call.resource, await body(call, 'none'))),
  childCreate: async (call) => created(call, await create(call.ctx, call.resource, await body(call, 'parent'), call.parent)),
  replace: async (call) => reply(call, await replace(call.ctx, call.resource, call.id, await body(call, 'record'))),
  patch: async (call) => reply(call, await patch(call.ctx, call.resource, call.id, await body(call, 'record'))),
  softDelete: async (call) => {
    await failAfterExists(call, queryError(call.url), 'record');
    await softDelete(call.ctx, call.resource, call.id);
    return new Response(null, { status: 204, headers: call.headers });
  },
};

function created(call: Call, record: Record<string, unknown>): Response {
  const location = `${call.deps.basePath}/maintenance/${call.resource.name}/${record.id}`;
  return reply(call, record, 201, { location });
}

async function listResponse(call: Call): Promise<Response> {
  const query = resolveQuery(parseQuery(call.url.searchParams), call.resource);
  if ('error' in query) {
    await failAfterExists(call, query.error, 'parent');
    throw query.error;
  }
  const page = await list(call.ctx, call.resource, query.value, call.parent);
  return replyJson(call, page.json, 200, listHeaders(call.url.pathname, page));
}

/**
 * Serves `{base}/maintenance/...`: caller, route, method, permission, then the operation; and
 * `{base}/events`, the change feed, behind the same caller resolution.
 */
export function createMaintenanceHandler(deps: HandlerDeps) {
  const prefix = `${deps.basePath}/maintenance`;
  const feedPath = `${deps.basePath}/events`;
  const feed = feedRoute(deps);
  const dispatch = async (req: Request, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    const url = targetOf(req);
    if (url.pathname === feedPath) return feed(req, url, caller, headers);
    const rest = url.pathname.slice(prefix.length);
    const segments = rest === '' || rest === '/' ? [] : rest.slice(1).split('/');
    const match = matchPath(deps.registry, segments.map(safeDecode));
    noteMatch(req, match); // the route label (logs, metrics) is this match's
    if (!match.found) throw new EngineError('not-found', `No collection or record at ${url.pathname}.`);
    const route = routeFor(match.kind, req.method);
    if (!route)
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], { allow: allowHeader(match.kind) });
    if (!caller.can(match.resource.name, route.action))
      throw new EngineError('forbidden', `Your roles do not grant ${route.action} on ${match.resource.name}.`);
    const ctx: OperationContext = { tenant: caller.tenant, registry: deps.registry, user: caller.user, cursors: deps.cursors };
    return OPERATIONS[route.op]({ req, url, ctx, resource: match.resource, id: match.id ?? 0, parent: match.parent, deps, headers });
  };
  /** `hostHeaders` go on every answer to the request; errors before the caller is known get them from the caller of this. */
  return async (req: Request, hostHeaders?: Readonly<Record<string, string>>): Promise<Response> => {
    const caller = await deps.resolveCaller(req);
    const headers = caller.headers ? joinHeaders(hostHeaders, caller.headers) : (hostHeaders ?? {});
    if (!caller.headers && !hostHeaders) return dispatch(req, caller, headers);
    try {
      return await dispatch(req, caller, headers);
    } catch (e) {
      if (e instanceof EngineError) throw new EngineError(e.code, e.detail, e.errors, joinHeaders(e.headers, headers));
      throw e;
    }
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
