import { EngineError, valueOf, type ProblemItem } from '../errors.ts';
import { readJsonBody } from '../http/body.ts';
import { etagOf, noneMatchMatches, parseCondition, type Condition } from '../http/conditional.ts';
import { joinHeaders } from '../http/headers.ts';
import { listHeaders } from '../http/list-headers.ts';
import { list } from '../operations/list.ts';
import { requireParent } from '../operations/read.ts';
import { softDelete } from '../operations/soft-delete.ts';
import { patch } from '../operations/update.ts';
import { parseQuery } from '../query/parse.ts';
import { resolveQuery } from '../query/resolve.ts';
import { isPlainObject } from '../validate/body.ts';
import { PATCHABLE } from './definition.ts';
import { fileOf, metadataResponse, scopeOf, shownJson, type FileCall } from './file-call.ts';
import { keptFilename } from './filename.ts';

/** GET (and HEAD) of a parent's files: a list like any child list, in id order. */
export async function listFiles(call: FileCall): Promise<Response> {
  const { ctx, path, url } = call;
  const query = resolveQuery(parseQuery(url.searchParams), path.files);
  if ('error' in query) {
    await fileParent(call);
    throw query.error;
  }
  const page = await list(ctx, path.files, query.value, scopeOf(path));
  const json = call.deps.files?.links
    ? `[${(await Promise.all((JSON.parse(page.json) as { id: number }[]).map((r) => shownJson(call, JSON.stringify(r), r.id)))).join(',')}]`
    : page.json;
  return new Response(json, {
    status: 200,
    headers: joinHeaders({ 'content-type': 'application/json' }, call.headers, listHeaders(url.pathname, page)),
  });
}

/** 404 for a parent missing or deleted comes before the request's other problems. */
const fileParent = (call: FileCall) => requireParent(call.ctx, call.path.parent, call.path.parentId);

/** GET of a file's metadata: `$deleted=true` finds a deleted one; If-None-Match may answer 304. */
export async function readFile(call: FileCall): Promise<Response> {
  const deleted = call.url.hasQuery ? call.url.searchParams.get('$deleted') : null;
  const bad = [...(call.url.hasQuery ? call.url.searchParams.keys() : [])].filter((k) => k !== '$deleted');
  if (bad.length || (deleted !== null && deleted !== 'true' && deleted !== 'false')) {
    await fileParent(call);
    throw new EngineError(
      'invalid-query',
      'The query is not valid.',
      (bad.length ? bad : ['$deleted']).map((parameter) => ({ parameter, message: 'only $deleted=true or false is allowed here' })),
    );
  }
  const record = await fileOf(call, deleted === 'true');
  const noneMatch = valueOf(parseCondition('If-None-Match', call.req.headers.get('if-none-match')));
  const etag = etagOf(record.version);
  if (noneMatch && noneMatchMatches(noneMatch, etag))
    return new Response(null, { status: 304, headers: joinHeaders(call.headers, { etag }) });
  return metadataResponse(call, record);
}

/** A write's If-Match: required when the engine says so (428), a malformed one 400. */
export function ifMatchOf(call: FileCall): Condition | undefined {
  const header = call.req.headers.get('if-match');
  if (header === null && call.deps.requireIfMatch)
    throw new EngineError('precondition-required', `${call.req.method} needs an If-Match header here: send the ETag of the file as read.`);
  return valueOf(parseCondition('If-Match', header));
}

/** PATCH of `filename` and `description`; the other fields are the server's (422 naming each). */
export async function patchFile(call: FileCall): Promise<Response> {
  const ifMatch = ifMatchOf(call);
  await fileOf(call);
  const sent = await readJsonBody(call.req);
  if ('error' in sent) throw sent.error;
  const body = sent.value;
  if (!isPlainObject(body)) throw new EngineError('invalid-body', 'The body must be a JSON object.');
  const problems: ProblemItem[] = [];
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (!(PATCHABLE as readonly string[]).includes(field))
      problems.push({ field, message: `only ${PATCHABLE.join(' and ')} may be changed` });
    else if (field === 'filename' && typeof value === 'string') {
      const kept = keptFilename(value);
      if (kept.ok) changes.filename = kept.value;
      else problems.push({ field, message: kept.message });
    } else changes[field] = value;
  }
  if (problems.length) throw new EngineError('invalid-body', 'The body has invalid fields.', problems);
  return metadataResponse(call, await patch(call.ctx, call.path.files, call.path.fid, changes, ifMatch));
}

/** DELETE: a soft delete; the bytes stay while a row names them. */
export async function deleteFile(call: FileCall): Promise<Response> {
  const ifMatch = ifMatchOf(call);
  await fileOf(call);
  await softDelete(call.ctx, call.path.files, call.path.fid, ifMatch);
  return new Response(null, { status: 204, headers: call.headers });
}
