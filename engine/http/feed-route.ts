import { readableFeed } from '../files/definition.ts';
import { EngineError, problemsOf } from '../errors.ts';
import { eventStream } from '../events/event-stream.ts';
import { feedWatcher } from '../events/feed-watcher.ts';
import { MAX_EVENTS_LIMIT, parseFeedQuery, type FeedQuery } from '../events/feed-query.ts';
import { lastEventId } from '../events/last-event-id.ts';
import type { OpenStreams } from '../events/open-streams.ts';
import type { FeedSettings } from '../events/retention.ts';
import type { OperationContext } from '../operations/context.ts';
import type { CursorSettings } from '../cursor/index.ts';
import { readFeed, readFeedPage } from '../operations/feed.ts';
import type { Registry } from '../registry.ts';
import type { Caller } from './caller.ts';
import { joinHeaders } from './headers.ts';
import type { RequestTarget } from './request-target.ts';

/** The feed's methods (HEAD beside GET, as on every GET path). */
export const FEED_METHODS = 'GET, HEAD';

const JSON_TYPE = { 'content-type': 'application/json' };
/** No cache or proxy may hold a stream back. */
const STREAM_TYPE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** How the feed is streamed (Server-Sent Events). */
export interface StreamSettings {
  /** A keep-alive comment goes out when nothing did for this long. */
  readonly heartbeatMs: number;
  /** The engine's open streams. */
  readonly open: OpenStreams;
  /** A stream's read that failed unexpectedly (the stream ends; its client resumes). */
  readonly onError?: ((e: unknown, req: Request) => void) | undefined;
}

export interface FeedDeps {
  readonly registry: Registry;
  readonly cursors: CursorSettings;
  readonly feed: FeedSettings;
  readonly streams: StreamSettings;
}

/** Whether the client asks for the feed as Server-Sent Events (EventSource sends exactly this type). */
const wantsStream = (req: Request) => /\btext\/event-stream\b/i.test(req.headers.get('accept') ?? '');

/**
 * `GET {base}/events` (SPEC 9): a page of the caller's tenant's change feed, of the collections
 * its roles may read, with `X-Change-Seq`; with `Accept: text/event-stream`, the feed as a
 * stream from `$after` or `Last-Event-ID`. Reached through the same caller resolution, gates and
 * rate limit as the collections' paths (http/handle.ts): a stream counts once.
 */
export function feedRoute(deps: FeedDeps) {
  const names = new Set(deps.registry.resources.keys());
  return async (req: Request, url: RequestTarget, caller: Caller, headers: Readonly<Record<string, string>>): Promise<Response> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new EngineError('method-not-allowed', `${req.method} is not allowed on this path.`, [], { allow: FEED_METHODS });
    const streaming = wantsStream(req);
    const query = checkedQuery(url.searchParams, names, streaming ? req.headers.get('last-event-id') : null);
    const ctx: OperationContext = { tenant: caller.tenant, registry: deps.registry, user: caller.user, cursors: deps.cursors };
    const only = readableFeed(deps.registry, caller);
    if (!streaming) {
      const page = await readFeed(ctx, deps.feed, query, only);
      return new Response(page.json, { status: 200, headers: joinHeaders(JSON_TYPE, headers, { 'x-change-seq': String(page.highest) }) });
    }
    // A stream reads big pages; retention's 410 comes from its first read, before the answer.
    const read = (after: number) => readFeedPage(ctx, deps.feed, { ...query, after, limit: MAX_EVENTS_LIMIT }, only);
    const first = await read(query.after);
    const streamHeaders = joinHeaders(STREAM_TYPE, headers, { 'x-change-seq': String(first.highest) });
    if (req.method === 'HEAD') return new Response(null, { status: 200, headers: streamHeaders });
    const settings = deps.streams;
    const stream = eventStream({
      after: query.after,
      first,
      read,
      pageSize: MAX_EVENTS_LIMIT,
      watcher: feedWatcher(caller.tenant),
      heartbeatMs: settings.heartbeatMs,
      endsAt: caller.expiresAt,
      signal: req.signal,
      open: settings.open,
      onError: (e) => {
        if (!(e instanceof EngineError)) settings.onError?.(e, req);
      },
    });
    return new Response(stream.body, { status: 200, headers: streamHeaders });
  };
}

/** The feed's query, `$after` replaced by `Last-Event-ID` when sent; every problem at once. */
function checkedQuery(params: URLSearchParams, names: ReadonlySet<string>, lastId: string | null): FeedQuery {
  const parsed = parseFeedQuery(params, names);
  const resume = lastEventId(lastId);
  if ('error' in parsed || 'error' in resume)
    throw new EngineError('invalid-query', 'The query is not valid: see errors.', problemsOf(parsed, resume));
  return resume.value === undefined ? parsed.value : { ...parsed.value, after: resume.value };
}
