import type { CursorSettings } from '../cursor/index.ts';
import { EngineError, errorOf, valueOf, valueOrUndefined, type Result } from '../errors.ts';
import { create, createClaimed } from '../operations/create.ts';
import type { OperationContext, ParentScope } from '../operations/context.ts';
import { list } from '../operations/list.ts';
import { read, readJson, requireParent } from '../operations/read.ts';
import { requireBelongs } from '../operations/belongs.ts';
import { softDelete } from '../operations/soft-delete.ts';
import { patch, replace } from '../operations/update.ts';
import { resolveQueryText } from '../query/resolved.ts';
import type { Registry, Resource } from '../registry.ts';
import type { FeedSettings } from '../events/retention.ts';
import type { Written } from '../records.ts';
import { readJsonBodyOnce } from './body.ts';
import { retryTransientOnce } from '../transient.ts';
import { usingTenant } from '../tenant-use.ts';
import { explainFailure } from '../schema/still-serves.ts';
import { etagOf, lastModifiedOf, noneMatchMatches, notModifiedSince, parseCondition, type Condition } from './conditional.ts';
import { linkedCollections, linkedCollectionsOf, resolveShapeParams } from '../query/shape.ts';
import { expectedVersion } from '../operations/precondition.ts';
import { parseIdempotencyKey, type Claim, type IdempotencySettings, type KeptAnswer } from '../idempotency/index.ts';
import { batchRoute } from './batch-route.ts';
import type { FilesOptions } from '../files/options.ts';
import type { ChargeCaller } from '../rate-limit.ts';
import { filesRoute } from '../files/route.ts';
import { signLinkedFiles } from '../files/linked-files.ts';
import { feedRoute, type StreamSettings } from './feed-route.ts';
import { joinHeaders } from './headers.ts';
import type { Caller, ResolveCaller } from './caller.ts';
import { listHeaders } from './list-headers.ts';
import { pathSegments, targetOf, type RequestTarget } from './request-target.ts';
import { allowHeader, matchPath, noteMatch, routeFor, type OperationName } from './route-table.ts';
import { operationContext, writeOnce } from './operation-call.ts';
import { createdAnswer, DELETED, responseOf, updatedAnswer } from './write-answer.ts';

export interface HandlerDeps {
  readonly registry: Registry;
  readonly basePath: string;
  readonly resolveCaller: ResolveCaller;
  readonly cursors: CursorSettings;
  /** PATCH, PUT and DELETE without If-Match are 428 (SPEC 10). */
  readonly requireIfMatch?: boolean;
  readonly idempotency: IdempotencySettings;
  readonly feed: FeedSettings;
  readonly streams: StreamSettings;
  /** Attached files' bytes and the host pieces that read them (undefined: no files are served). */
  readonly files?: FilesOptions | undefined;
  /** The rate limit's charge of a batch's operations, made by its route (undefined: no rate limit). */
  readonly charge?: ChargeCaller | undefined;
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
  /** Its permissions (`$linked` needs read on each collection it names) and the links signed for it. */
  readonly caller: Caller;
}

const JSON_TYPE = { 'content-type': 'application/json' };
/** Every answer carries the caller's headers (rate-limit state), set when the Response is made; `json` is the body's JSON text. */
const replyJson = (call: Call, json: string, status = 200, headers?: Record<string, string>) =>
  new Response(json, { status, headers: joinHeaders(JSON_TYPE, call.headers, headers) });

/**
 * Problems found before the record was looked up are answered only once the record (or parent)
 * is known to exist, keeping SPEC's order: 404 for the record before 415, 413 and 400.
 */
async function failAfterExists(
  call: Call,
  error: EngineError | undefined,
  target: 'record' | 'parent',
  ifMatch?: Condition,
): Promise<void> {
  if (!error) return;
  // On GET (and HEAD), `$deleted=true` makes a deleted record or parent exist for this purpose too.
  const includeDeleted = (call.req.method === 'GET' || call.req.method === 'HEAD') && call.url.searchParams.get('$deleted') === 'true';
  if (target === 'parent' && call.parent) await requireParent(call.ctx, call.parent.resource, call.parent.id, includeDeleted);
  // 412 comes before 415, 413 and 400 too (the write itself checks it again, atomically).
  if (target === 'record') expectedVersion(await read(call.ctx, call.resource, call.id, { includeDeleted }), ifMatch);
  throw error;
}

const NO_CONDITION: Result<Condition | undefined> = { value: undefined };
/**
 * A write's If-Match: 428 at once when one is required and none was sent (before the record is
 * looked up); a malformed header is a 400, answered in its place among the other 400s.
 */
function ifMatchOf(call: Call): Result<Condition | undefined> {
  const header = call.req.headers.get('if-match');
  if (header === null && call.deps.requireIfMatch)
    throw new EngineError(
      'precondition-required',
      `${call.req.method} needs an If-Match header here: send the ETag of the record as read.`,
    );
  return parseCondition('If-Match', header);
}

function queryError(url: RequestTarget, allowed: readonly string[] = []): EngineError | undefined {
  if (!url.hasQuery) return undefined;
  const bad = [...url.searchParams.keys()].filter((k) => !allowed.includes(k));
  if (!bad.length) return undefined;
  return new EngineError(
    'invalid-query',
    'This path takes no such query parameter.',
    bad.map((parameter) => ({
      parameter,
      message: allowed.length ? `only ${allowed.join(', ')} is allowed here` : 'no query parameters are allowed here',
    })),
  );
}

/** The body; before it, in SPEC 1's order, 404 for the record or parent, 412, 415, 413 and the 400s (query, then headers). */
async function body(
  call: Call,
  target: 'record' | 'parent' | 'none',
  ifMatch: Result<Condition | undefined> = NO_CONDITION,
  headerError?: EngineError,
): Promise<unknown> {
  const b = await readJsonBodyOnce(call.req);
  const error = 'error' in b ? b.error : (queryError(call.url) ?? errorOf(ifMatch) ?? headerError);
  if (target !== 'none') await failAfterExists(call, error, target, valueOrUndefined(ifMatch));
  if (error) throw error;
  return valueOf(b);
}

/**
 * POST and PATCH: the body (after the checks before it), then the write; with an Idempotency-Key
 * sent, the write runs in the transaction that keeps its answer, or the kept answer is sent
 * again (engine/idempotency/).
 */
async function writeResponse(
  call: Call,
  target: 'record' | 'parent' | 'none',
  ifMatch: Result<Condition | undefined>,
  write: (ctx: OperationContext, body: unknown) => Promise<KeptAnswer>,
  oneStatement?: (body: unknown, claim: Claim) => Promise<KeptAnswer | undefined>,
): Promise<Response> {
  const parsedKey = parseIdempotencyKey(call.req.headers.get('idempotency-key'));
  const sent = await body(call, target, ifMatch, errorOf(parsedKey));
  const key = valueOrUndefined(parsedKey);
  if (key === undefined) return responseOf(await write(call.ctx, sent), call.headers);
  const outcome = await writeOnce(
    call.ctx,
    call.deps.idempotency,
    { method: call.req.method, pathname: call.url.pathname, sent, key },
    (ctx) => write(ctx, sent),
    oneStatement && ((claim) => oneStatement(sent, claim)),
  );
  return responseOf(outcome.answer, call.headers, outcome.replayed);
}

/** PUT: If-Match, the body, then the write; the answer carries the new ETag. */
async function replaceResponse(call: Call): Promise<Response> {
  const ifMatch = ifMatchOf(call);
  const written = await replace(call.ctx, call.resource, call.id, await body(call, 'record', ifMatch), valueOrUndefined(ifMatch));
  return responseOf(updatedAnswer(written), call.headers);
}

/** PATCH: as PUT, and an Idempotency-Key may make it safe to retry. */
async function patchResponse(call: Call): Promise<Response> {
  const ifMatch = ifMatchOf(call);
  return writeResponse(call, 'record', ifMatch, async (ctx, sent) =>
    updatedAnswer(await patch(ctx, call.resource, call.id, sent, valueOrUndefined(ifMatch))),
  );
}

const OPERATIONS: Record<OperationName, (call: Call) => Promise<Response>> = {
  list: (call) => listResponse(call),
  childList: (call) => listResponse(call),
  read: async (call) => {
    const params = call.url.searchParams;
    const deleted = call.url.hasQuery ? params.get('$deleted') : null;
    const noneMatch = parseCondition('If-None-Match', call.req.headers.get('if-none-match'));
    const problems: { parameter: string; message: string }[] = [];
    const shape = call.url.hasQuery ? resolveShapeParams(params, call.resource, problems) : undefined;
    if (call.url.hasQuery) forbidLinked(call);
    const error =
      queryError(call.url, ['$deleted', '$fields', '$linked']) ??
      (deleted !== null && deleted !== 'true' && deleted !== 'false'
        ? new EngineError('invalid-query', 'The query is not valid.', [
            { parameter: '$deleted', message: '$deleted must be true or false' },
          ])
        : undefined) ??
      (problems.length ? new EngineError('invalid-query', 'The query is not valid: see errors.', problems) : undefined) ??
      errorOf(noneMatch);
    await failAfterExists(call, error, 'record');
    const found = await readJson(call.ctx, call.resource, call.id, { includeDeleted: deleted === 'true', shape });
    const validators = { etag: etagOf(found.version), 'last-modified': lastModifiedOf(found.updated) };
    // If-Modified-Since counts only without If-None-Match (RFC 9110 13.2.2).
    const condition = valueOrUndefined(noneMatch);
    const notModified =
      condition !== undefined || 'error' in noneMatch
        ? condition !== undefined && noneMatchMatches(condition, validators.etag)
        : notModifiedSince(call.req.headers.get('if-modified-since'), found.updated);
    if (notModified) return new Response(null, { status: 304, headers: joinHeaders(call.headers, validators) });
    return replyJson(call, await shown(call, found.json, shape?.linked), 200, validators);
  },
  create: (call) =>
    writeResponse(
      call,
      'none',
      NO_CONDITION,
      async (ctx, sent) => created(call, await create(ctx, call.resource, sent)),
      (sent, claim) =>
        createClaimed(call.ctx, call.resource, sent, claim, {
          collectionPath: collectionPath(call),
          answer: (written) => created(call, written),
        }),
    ),
  childCreate: (call) =>
    writeResponse(call, 'parent', NO_CONDITION, async (ctx, sent) => created(call, await create(ctx, call.resource, sent, call.parent))),
  replace: replaceResponse,
  patch: patchResponse,
  softDelete: async (call) => {
    const ifMatch = ifMatchOf(call);
    await failAfterExists(call, queryError(call.url) ?? errorOf(ifMatch), 'record', valueOrUndefined(ifMatch));
    await softDelete(call.ctx, call.resource, call.id, valueOrUndefined(ifMatch));
    return responseOf(DELETED, call.headers);
  },
};

const collectionPath = (call: Call) => `${call.deps.basePath}${call.resource.path}`;
const created = (call: Call, written: Written): KeptAnswer => createdAnswer(written, collectionPath(call));

/** 403 when `$linked` names a collection the caller may not read (before the query's 400s, in SPEC 1's order). */
function forbidLinked(call: Call, collections = linkedCollections(call.url.searchParams, call.resource)): void {
  for (const linked of collections) {
    // A collection under its parents (files) is read with the parent's read, as its routes read it.
    const child = call.deps.registry.get(linked)?.underParents ? call.resource.name : linked;
    if (!call.caller.can(child, 'read'))
      throw new EngineError('forbidden', `Your roles do not grant read on ${child}, which $linked names.`);
  }
}

/** A page's or record's JSON as answered, shaped with these `$linked` names: linked files with their signed links. */
const shown = (call: Call, json: string, linked: readonly string[] | undefined) =>
  signLinkedFiles(json, call.resource, collectionPath(call), call.caller, call.deps.files?.links, linked);

async function listResponse(call: Call): Promise<Response> {
  const query = resolveQueryText(call.url.query, call.resource);
  // A resolved query's `$linked` names are checked ones: the query string is not read again for them.
  if ('value' in query) forbidLinked(call, linkedCollectionsOf(query.value.linked ?? [], call.resource));
  else if (call.url.hasQuery) forbidLinked(call);
  if ('error' in query) {
    await failAfterExists(call, query.error, 'parent');
    throw query.error;
  }
  const page = await list(call.ctx, call.resource, query.value, call.parent);
  return replyJson(call, await shown(call, page.json, page.linked), 200, listHeaders(call.url.pathname, page));
}

/**
 * Serves every collection's paths (`{base}/{group}/...`, `{base}/bulk/...`): caller, route, method,
 * permission, then the operation; and `{base}/events`, the change feed, and `{base}/batch`,
 * behind the same caller resolution.
 */
export function createMaintenanceHandler(deps: HandlerDeps) {
  const prefix = deps.basePath;
  const feedPath = `${deps.basePath}/events`;
  const feed = feedRoute(deps);
  const batchPath = `${deps.basePath}/batch`;
  const batch = batchRoute(deps);
  const files = filesRoute(deps);
  const dispatch = async (req: Request, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    const url = targetOf(req);
    if (url.pathname === feedPath) return feed(req, url, caller, headers);
    if (url.pathname === batchPath) return batch(req, url, caller, headers);
    const segments = pathSegments(url.pathname.slice(prefix.length));
    const filed = files(req, url, segments, caller, headers);
    if (filed) return filed;
    const match = matchPath(deps.registry, segments);
    noteMatch(req, match); // the route label (logs, metrics) is this match's
    if (!match.found) throw new EngineError('not-found', `No collection or record at ${url.pathname}.`);
    const route = routeFor(match.kind, req.method);
    if (!route)
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], { allow: allowHeader(match.kind) });
    if (!caller.can(match.resource.name, route.action))
      throw new EngineError('forbidden', `Your roles do not grant ${route.action} on ${match.resource.name}.`);
    const ctx = operationContext(deps, caller);
    let parent = match.parent;
    if (match.kind === 'childRecord') {
      // The 428 of a write without If-Match comes before the 404 of a record (SPEC 1's order).
      const needsIfMatch = deps.requireIfMatch && route.action !== 'read' && !req.headers.has('if-match');
      if (!needsIfMatch) await requireBelongs(ctx, match.resource, match.id!, match.parent!);
      parent = undefined;
    }
    return OPERATIONS[route.op]({ req, url, ctx, resource: match.resource, id: match.id ?? 0, parent, deps, headers, caller });
  };
  /** `hostHeaders` go on every answer to the request; errors before the caller is known get them from the caller of this. */
  return async (req: Request, hostHeaders?: Readonly<Record<string, string>>): Promise<Response> => {
    const caller = await deps.resolveCaller(req);
    const headers = caller.headers ? joinHeaders(hostHeaders, caller.headers) : (hostHeaders ?? {});
    const attempt = () => retryTransientOnce(() => dispatch(req, caller, headers));
    const run = () => usingTenant(caller.tenant, attempt).catch((e) => explainFailure(caller.tenant, deps.registry, e));
    try {
      return await run();
    } catch (e) {
      if (e instanceof EngineError && (caller.headers || hostHeaders))
        throw new EngineError(e.code, e.detail, e.errors, joinHeaders(e.headers, headers));
      throw e;
    } finally {
      caller.release?.(); // an event stream outliving the answer holds its tenant by following its feed
    }
  };
}
