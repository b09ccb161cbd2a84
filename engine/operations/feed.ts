import { EngineError } from '../errors.ts';
import type { EventPage, EventQuery } from '../events/event-log.ts';
import type { FeedQuery } from '../events/feed-query.ts';
import type { FeedScope } from '../files/definition.ts';
import { sweepIfDue, type FeedSettings } from '../events/retention.ts';
import type { OperationContext } from './context.ts';

export interface FeedPage {
  /** The events as the text of a JSON array, in ascending seq. */
  readonly json: string;
  /** The highest seq committed when the page was read (X-Change-Seq). */
  readonly highest: number;
}

/**
 * A page of the tenant's change feed after `query.after`, of what `readable` names only (the
 * collections the caller's roles may read, and the parents of files' events). A position whose events retention
 * already removed is 410 `events-gone`: the client starts again from a list.
 */
export async function readFeedPage(
  ctx: OperationContext,
  settings: FeedSettings,
  query: FeedQuery,
  readable: FeedScope,
): Promise<EventPage> {
  return notGone(query, await ctx.tenant.events.read(ctx.tenant, await pageQuery(ctx, settings, query, readable)));
}

/** readFeedPage as the JSON answer, written by the database (EventLog.readJson). */
export async function readFeed(ctx: OperationContext, settings: FeedSettings, query: FeedQuery, readable: FeedScope): Promise<FeedPage> {
  const page = notGone(query, await ctx.tenant.events.readJson(ctx.tenant, await pageQuery(ctx, settings, query, readable)));
  return { json: page.json, highest: page.highest };
}

/** The page's query, of the collections the caller may read; retention's sweep first when due. */
async function pageQuery(ctx: OperationContext, settings: FeedSettings, query: FeedQuery, readable: FeedScope): Promise<EventQuery> {
  await sweepIfDue(ctx.tenant, settings);
  const only = readable.collections;
  const collections = only === undefined ? query.collections : (query.collections ?? only).filter((c) => only.includes(c));
  const named = readable.parents && [...ctx.registry.resources.values()].filter((r) => r.eventsNameParent).map((r) => r.name);
  return { after: query.after, limit: query.limit, collections, ops: query.ops, parents: readable.parents, named };
}

/** A position whose events retention already removed is 410 events-gone. */
function notGone<P extends { readonly goneBelow: number }>(query: FeedQuery, page: P): P {
  if (query.after < page.goneBelow)
    throw new EngineError(
      'events-gone',
      `Events up to seq ${page.goneBelow} are past retention; list the collections again and follow the feed from their X-Change-Seq.`,
    );
  return page;
}
