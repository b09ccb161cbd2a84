import { EngineError } from '../errors.ts';
import type { Caller } from '../http/caller.ts';
import type { RequestTarget } from '../http/request-target.ts';
import { operationContext } from '../http/operation-call.ts';
import type { CursorSettings } from '../cursor/index.ts';
import { readContent } from './content.ts';
import type { FileCall, FileRouteDeps } from './file-call.ts';
import { deleteFile, listFiles, patchFile, readFile } from './metadata-routes.ts';
import { FILE_METHODS, matchFilePath, type FilePathKind } from './paths.ts';
import { replaceContent, uploadFile } from './upload.ts';

export type { FileRouteDeps } from './file-call.ts';

/** What each method does on each file path (HEAD runs GET's; the fetch host drops its body). */
const ROUTES: Record<FilePathKind, Readonly<Record<string, (call: FileCall) => Promise<Response>>>> = {
  files: { GET: listFiles, POST: uploadFile },
  file: { GET: readFile, PATCH: patchFile, DELETE: deleteFile },
  content: { GET: readContent, PUT: replaceContent },
};

/**
 * Serves a record's attached files (SPEC 13) under its path, in any group, or answers undefined
 * for a path that is not about files. Reading needs `read` on the parent's collection, any
 * change `update` on it.
 */
export function filesRoute(deps: FileRouteDeps & { readonly cursors: CursorSettings }) {
  return (
    req: Request,
    url: RequestTarget,
    segments: readonly string[],
    caller: Caller,
    headers: Readonly<Record<string, string>>,
  ): Promise<Response> | undefined => {
    const path = matchFilePath(deps.registry, segments);
    if (path === 'none') return undefined;
    if (path === 'not-found') throw new EngineError('not-found', `No collection or record at ${url.pathname}.`);
    const run = ROUTES[path.kind][req.method === 'HEAD' ? 'GET' : req.method];
    if (!run)
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], {
        allow: FILE_METHODS[path.kind].join(', '),
      });
    const action = req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'update';
    if (!caller.can(path.parent.name, action))
      throw new EngineError('forbidden', `Your roles do not grant ${action} on ${path.parent.name}, whose files these are.`);
    return run({ req, url, ctx: operationContext(deps, caller), caller, path, deps, headers });
  };
}
