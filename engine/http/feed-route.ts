import { EngineError, valueOf } from '../errors.ts';
import { parseFeedQuery } from '../events/feed-query.ts';
import type { FeedSettings } from '../events/retention.ts';
import type { OperationContext } from '../operations/context.ts';
import type { CursorSettings } from '../cursor/index.ts';
import { readFeed } from '../operations/feed.ts';
import type { Registry } from '../registry.ts';
import type { Caller } from './caller.ts';
import { joinHeaders } from './headers.ts';
import type { RequestTarget } from './request-target.ts';

/** The feed's methods (HEAD beside GET, as on every GET path). */
export const FEED_METHODS = 'GET, HEAD';

const JSON_TYPE = { 'content-type': 'application/json' };

export interface FeedDeps {
  readonly registry: Registry;
  readonly cursors: CursorSettings;
  readonly feed: FeedSettings;
}

/**
 * `GET {base}/events` (SPEC 9): a page of the caller's tenant's change feed, of the collections
 * its roles may read, with `X-Change-Seq`. Reached through the same caller resolution, gates and
 * rate limit as `/maintenance` (http/handle.ts).
 */
export function feedRoute(deps: FeedDeps) {
  const names = new Set(deps.registry.resources.keys());
  return async (req: Request, url: RequestTarget, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], { allow: FEED_METHODS });
    const query = valueOf(parseFeedQuery(url.searchParams, names));
    const readable = [...names].filter((name) => caller.can(name, 'read'));
    const ctx: OperationContext = { tenant: caller.tenant, registry: deps.registry, user: caller.user, cursors: deps.cursors };
    const page = await readFeed(ctx, deps.feed, query, readable.length === names.size ? undefined : readable);
    return new Response(page.json, { status: 200, headers: joinHeaders(JSON_TYPE, headers, { 'x-change-seq': String(page.highest) }) });
  };
}
