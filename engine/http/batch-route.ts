import { EngineError, valueOrUndefined, type ProblemItem, type Result } from '../errors.ts';
import { parseIdempotencyKey, type IdempotencySettings, type KeptAnswer, type Outcome } from '../idempotency/index.ts';
import { create, createAll, plainCreate } from '../operations/create.ts';
import type { OperationContext } from '../operations/context.ts';
import { softDelete } from '../operations/soft-delete.ts';
import { patch, replace } from '../operations/update.ts';
import type { Written } from '../records.ts';
import type { InsertPlan } from '../writes/plan.ts';
import type { Registry, Resource } from '../registry.ts';
import { isPlainObject } from '../validate/body.ts';
import { readJsonBodyOnce } from './body.ts';
import type { Caller } from './caller.ts';
import { parseCondition, type Condition } from './conditional.ts';
import { joinHeaders } from './headers.ts';
import type { ChargeCaller } from '../rate-limit.ts';
import type { RequestTarget } from './request-target.ts';
import { isFilePath } from '../files/paths.ts';
import { requireBelongs } from '../operations/belongs.ts';
import { matchEncoded, routeFor, type Match } from './route-table.ts';
import { inCallTransaction, operationContext, writeOnce } from './operation-call.ts';
import { batchBody, createdAnswer, DELETED, responseOf, updatedAnswer, type WriteAnswer } from './write-answer.ts';

export const BATCH_METHODS = 'POST';
export const MAX_BATCH_OPERATIONS = 100;
const WRITE_METHODS = ['POST', 'PATCH', 'PUT', 'DELETE'];

export interface BatchDeps {
  readonly registry: Registry;
  readonly basePath: string;
  readonly cursors: OperationContext['cursors'];
  readonly idempotency: IdempotencySettings;
  /** PATCH, PUT and DELETE operations without if_match are 428, as the single requests (SPEC 10). */
  readonly requireIfMatch?: boolean;
  /** The rate limit's charge: the route counts the batch's operations once it has read its body (undefined: no rate limit). */
  readonly charge?: ChargeCaller | undefined;
}

/** One operation of a batch, checked and routed. */
interface Planned {
  readonly method: string;
  readonly match: Extract<Match, { found: true }>;
  readonly body: unknown;
  readonly ifMatch: Condition | undefined;
}

const invalid = (problems: ProblemItem[]) => new EngineError('invalid-batch', 'The batch is not valid: see errors.', problems);

/** How many calls a batch counts against the rate limit: its operations, each one (SPEC 10); one too malformed to count, or no POST, is one. */
function batchCost(read: Result<unknown> | undefined): number {
  const ops = read && 'value' in read && isPlainObject(read.value) ? read.value.operations : undefined;
  return Array.isArray(ops) ? Math.min(Math.max(ops.length, 1), MAX_BATCH_OPERATIONS) : 1;
}

/** The batch's operations, each checked and routed; every shape problem at once (422), then 404, 405, 403 in order of the operations. */
function plan(deps: BatchDeps, caller: Caller, sent: unknown): Planned[] {
  if (!isPlainObject(sent)) throw invalid([{ field: 'operations', message: 'the body must be an object with an operations array' }]);
  const ops = sent.operations;
  if (!Array.isArray(ops)) throw invalid([{ field: 'operations', message: 'must be an array of operations' }]);
  if (ops.length < 1 || ops.length > MAX_BATCH_OPERATIONS)
    throw invalid([{ field: 'operations', message: `must hold 1 to ${MAX_BATCH_OPERATIONS} operations (it holds ${ops.length})` }]);
  const problems: ProblemItem[] = [];
  const shaped = ops.map((op, i) => shapeOf(op, i, problems));
  if (problems.length) throw invalid(problems);
  return shaped.map((op, i) => route(deps, caller, op!, i));
}

interface Shaped {
  method: string;
  path: string;
  body: unknown;
  ifMatch: Condition | undefined;
}

function shapeOf(op: unknown, i: number, problems: ProblemItem[]): Shaped | undefined {
  const at = `operations[${i}]`;
  const problem = (field: string, message: string) => problems.push({ field: `${at}${field}`, message, operation: i });
  if (!isPlainObject(op)) return void problem('', 'must be an object with method and path');
  const before = problems.length;
  for (const key of Object.keys(op))
    if (!['method', 'path', 'body', 'if_match'].includes(key)) problem(`.${key}`, 'is not a field of an operation');
  const method = op.method;
  if (typeof method !== 'string' || !WRITE_METHODS.includes(method)) problem('.method', `must be one of ${WRITE_METHODS.join(', ')}`);
  if (typeof op.path !== 'string' || op.path === '')
    problem('.path', 'must be a collection or record path, such as /{group}/{collection}/{id}');
  if (method === 'DELETE' && op.body !== undefined) problem('.body', 'a DELETE takes no body');
  if (method !== 'DELETE' && WRITE_METHODS.includes(method as string) && op.body === undefined)
    problem('.body', `a ${method} needs a body`);
  let ifMatch: Condition | undefined;
  if (op.if_match !== undefined) {
    const parsed = typeof op.if_match === 'string' ? valueOrUndefined(parseCondition('If-Match', op.if_match)) : undefined;
    if (method === 'POST') problem('.if_match', 'a POST takes no if_match');
    else if (parsed === undefined) problem('.if_match', 'must be one or more strong entity tags, or *');
    else ifMatch = parsed;
  }
  return problems.length > before ? undefined : { method: method as string, path: op.path as string, body: op.body, ifMatch };
}

/** The operation's route and permission: 404, 405, 403 and 428 name the operation. */
function route(deps: BatchDeps, caller: Caller, op: Shaped, i: number): Planned {
  const item = (message: string): ProblemItem[] => [{ field: `operations[${i}].path`, message, operation: i }];
  const relative = op.path.startsWith(`${deps.basePath}/`) ? op.path.slice(deps.basePath.length) : op.path;
  if (relative.startsWith('/') && isFilePath(deps.registry, relative.slice(1)))
    throw new EngineError('invalid-request', `Operation ${i}: a batch takes no attached files; send ${op.path} on its own.`, [
      { field: `operations[${i}].path`, message: 'attached files are not sent in a batch', operation: i },
    ]);
  const match = relative.startsWith('/') ? matchEncoded(deps.registry, relative.slice(1)) : ({ found: false } as const);
  if (!match.found)
    throw new EngineError('not-found', `Operation ${i}: no collection or record at ${op.path}.`, item('no collection or record here'));
  const routed = routeFor(match.kind, op.method);
  if (!routed || routed.action === 'read')
    throw new EngineError(
      'method-not-allowed',
      `Operation ${i}: ${op.method} is not allowed on ${op.path}.`,
      item(`${op.method} is not allowed on this path`),
    );
  if (!caller.can(match.resource.name, routed.action))
    throw new EngineError(
      'forbidden',
      `Operation ${i}: your roles do not grant ${routed.action} on ${match.resource.name}.`,
      item(`no ${routed.action} permission on ${match.resource.name}`),
    );
  if (deps.requireIfMatch && op.method !== 'POST' && op.ifMatch === undefined)
    throw new EngineError(
      'precondition-required',
      `Operation ${i}: ${op.method} needs if_match here: send the ETag of the record as read.`,
      [{ field: `operations[${i}].if_match`, message: 'required here', operation: i }],
    );
  return { method: op.method, match, body: op.body, ifMatch: op.ifMatch };
}

/** Runs one operation on the batch's transaction. */
async function runOne(deps: BatchDeps, ctx: OperationContext, op: Planned): Promise<WriteAnswer> {
  const { resource, id, parent } = op.match;
  if (op.match.kind === 'childRecord') await requireBelongs(ctx, resource, id!, parent!);
  switch (op.method) {
    case 'POST':
      return created(deps, resource, await create(ctx, resource, op.body, parent));
    case 'PATCH':
      return updatedAnswer(await patch(ctx, resource, id!, op.body, op.ifMatch));
    case 'PUT':
      return updatedAnswer(await replace(ctx, resource, id!, op.body, op.ifMatch));
    default:
      await softDelete(ctx, resource, id!, op.ifMatch);
      return DELETED;
  }
}

const created = (deps: BatchDeps, resource: Resource, written: Written) => createdAnswer(written, `${deps.basePath}${resource.path}`);

/** An operation's error as the batch's: its status, every entry naming the operation (no record's ETag or Location). */
function asBatchError(e: unknown, i: number): unknown {
  if (!(e instanceof EngineError) || e.status >= 500) return e;
  const errors = e.errors.length
    ? e.errors.map((item) => Object.assign({}, item, { operation: i }))
    : [{ field: `operations[${i}]`, message: e.detail, operation: i }];
  const { etag: _etag, location: _location, ...headers } = e.headers;
  return new EngineError(e.code, e.errors.some((item) => item.operation === i) ? e.detail : `Operation ${i}: ${e.detail}`, errors, headers);
}

/**
 * Every operation in order on one transaction; the first that fails undoes them all. Creates
 * with nothing to look up first that follow each other, in one collection and of one shape, are
 * planned one by one and written together (createAll): one or two statements for the
 * run instead of one or two each. A run is written before the operation after it runs.
 */
async function runAll(deps: BatchDeps, ctx: OperationContext, ops: readonly Planned[]): Promise<KeptAnswer> {
  return inCallTransaction(ctx, async (inTrx) => {
    const outcomes: WriteAnswer[] = [];
    let run: { resource: Resource; shape: string; plans: InsertPlan[]; from: number } | undefined;
    const flush = async () => {
      if (!run) return;
      const { resource, plans, from } = run;
      run = undefined;
      let records: Written[];
      try {
        records = await createAll(inTrx, plans);
      } catch (e) {
        throw asBatchError(e, from); // a failure of the statement as a whole: its first operation's
      }
      for (const record of records) outcomes.push(created(deps, resource, record));
    };
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      try {
        const plainPlan = op.method === 'POST' ? plainCreate(inTrx, op.match.resource, op.body, op.match.parent) : undefined;
        if (plainPlan) {
          const shape = Object.keys(plainPlan.row).join('\0');
          if (run && (run.resource !== op.match.resource || run.shape !== shape)) await flush();
          if (!run) run = { resource: op.match.resource, shape, plans: [], from: i };
          run.plans.push(plainPlan);
          continue;
        }
        await flush();
        outcomes.push(await runOne(deps, inTrx, op));
      } catch (e) {
        throw asBatchError(e, i);
      }
    }
    await flush();
    return { status: 200, body: batchBody(outcomes) };
  });
}

/**
 * `POST {base}/batch` (SPEC 10): 1 to 100 writes on collection paths, all in one
 * transaction (their events too), or none. Reached through the same caller resolution, gates
 * and rate limit as the collections' paths (http/handle.ts), the limit counting each operation.
 */
export function batchRoute(deps: BatchDeps) {
  const { charge } = deps;
  const answer = batchAnswer(deps);
  if (!charge) return answer;
  return async (req: Request, url: RequestTarget, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    // The request's gate let the batch pass uncounted: its operations are counted here, before anything is checked.
    const charged = await charge(req, caller, batchCost(req.method === 'POST' ? await readJsonBodyOnce(req) : undefined));
    const window = charged.headers ?? {};
    try {
      return await answer(req, url, charged, joinHeaders(headers, window));
    } catch (e) {
      if (e instanceof EngineError) throw new EngineError(e.code, e.detail, e.errors, joinHeaders(e.headers, window));
      throw e;
    }
  };
}

function batchAnswer(deps: BatchDeps) {
  return async (req: Request, url: RequestTarget, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    if (req.method !== 'POST')
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], { allow: BATCH_METHODS });
    const parsedKey = parseIdempotencyKey(req.headers.get('idempotency-key'));
    const read = await readJsonBodyOnce(req);
    if ('error' in read) throw read.error;
    if (url.hasQuery)
      throw new EngineError(
        'invalid-query',
        'This path takes no query parameters.',
        [...url.searchParams.keys()].map((parameter) => ({ parameter, message: 'no query parameters are allowed here' })),
      );
    if ('error' in parsedKey) throw parsedKey.error;
    const key = parsedKey.value;
    const ops = plan(deps, caller, read.value);
    const ctx = operationContext(deps, caller);
    const outcome: Outcome =
      key === undefined
        ? { answer: await runAll(deps, ctx, ops), replayed: false }
        : await writeOnce(ctx, deps.idempotency, { method: req.method, pathname: url.pathname, sent: read.value, key }, (c) =>
            runAll(deps, c, ops),
          );
    return responseOf(outcome.answer, headers, outcome.replayed);
  };
}
