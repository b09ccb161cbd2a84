import { EngineError } from '../errors.ts';
import type { IdempotencySettings } from '../idempotency/index.ts';
import { loadRecord, notFound, type OperationContext, type ParentScope } from '../operations/context.ts';
import { requireParent } from '../operations/read.ts';
import type { Registry } from '../registry.ts';
import { jsonOf, type Stored, type Written } from '../records.ts';
import { etagOf } from '../http/conditional.ts';
import { joinHeaders } from '../http/headers.ts';
import type { RequestTarget } from '../http/request-target.ts';
import type { Caller } from '../http/caller.ts';
import type { FilesOptions } from './options.ts';
import type { FilePath } from './paths.ts';

export interface FileRouteDeps {
  readonly registry: Registry;
  readonly basePath: string;
  readonly idempotency: IdempotencySettings;
  readonly requireIfMatch?: boolean;
  readonly files?: FilesOptions | undefined;
}

/** One request on a file path, as the file routes see it. */
export interface FileCall {
  readonly req: Request;
  readonly url: RequestTarget;
  readonly ctx: OperationContext;
  readonly caller: Caller;
  readonly path: FilePath;
  readonly deps: FileRouteDeps;
  /** The caller's headers, for every answer. */
  readonly headers: Readonly<Record<string, string>>;
}

export const scopeOf = (path: FilePath): ParentScope => ({ resource: path.parent, id: path.parentId, field: path.field });

/** The path of the parent's files, base path included. */
export const filesPathOf = (call: FileCall) => `${call.deps.basePath}${call.path.parent.path}/${call.path.parentId}/attached_files`;

/** The host's file pieces, or 404: an engine without them serves no files. */
export function filesOf(call: FileCall): FilesOptions {
  if (!call.deps.files) throw new EngineError('not-found', 'This server keeps no attached files (createEngine has no files option).');
  return call.deps.files;
}

/**
 * The file the path names, under a live parent (or deleted ones too, when asked): a file of
 * another parent, or under a parent missing or deleted, is 404.
 */
export async function fileOf(call: FileCall, includeDeleted = false): Promise<Stored> {
  const { ctx, path } = call;
  await requireParent(ctx, path.parent, path.parentId, includeDeleted);
  const record = await loadRecord(ctx.tenant.db, ctx, path.files, path.fid, includeDeleted);
  if (!record || record.record[path.field] !== path.parentId) throw notFound(path.files.name, path.fid);
  return record;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * A file's metadata JSON as answered to this caller: with its signed `content_url` where the host
 * signs links (made per request, for its caller: the feed's records carry none).
 */
export async function shownJson(call: FileCall, json: string, id: unknown): Promise<string> {
  const links = call.deps.files?.links;
  const url = links && (await links.sign(call.caller, `${filesPathOf(call)}/${id}/content`));
  return url === undefined ? json : `${json.slice(0, -1)},"content_url":${JSON.stringify(url)}}`;
}

/** A file's metadata as answered: the record with its content_url, its ETag. */
export async function metadataResponse(call: FileCall, written: Written, status = 200, more?: Record<string, string>): Promise<Response> {
  return new Response(await shownJson(call, jsonOf(written), written.record.id), {
    status,
    headers: joinHeaders(JSON_TYPE, call.headers, { etag: etagOf(written.version) }, more),
  });
}
