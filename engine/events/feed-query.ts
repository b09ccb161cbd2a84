import { EngineError, type ProblemItem, type Result } from '../errors.ts';
import { EVENT_OPS, type EventOp } from './event-log.ts';

export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 1000;

/** A request for the feed (`GET {base}/events`), checked. */
export interface FeedQuery {
  /** Events with a greater seq. */
  readonly after: number;
  /** Page size as served (over MAX_EVENTS_LIMIT served as MAX_EVENTS_LIMIT). */
  readonly limit: number;
  /** Only these collections (undefined: every one). */
  readonly collections: readonly string[] | undefined;
  /** Only these ops (undefined: every one). */
  readonly ops: readonly EventOp[] | undefined;
}

/** A whole number from 0, as `$after` and Last-Event-ID take it. */
export const WHOLE = /^\+?\d{1,15}$/;
const isOp = (v: string): v is EventOp => (EVENT_OPS as readonly string[]).includes(v);

/**
 * The feed's query parameters (SPEC 9): `$after` (a whole number, default 0), `$limit` (from 1,
 * default 100, over 1000 served as 1000), `collection` and `op` (each repeatable: any of the
 * values). Anything else, an unknown collection or op: 400 naming it; every problem at once.
 */
export function parseFeedQuery(params: URLSearchParams, collections: ReadonlySet<string>): Result<FeedQuery> {
  const problems: ProblemItem[] = [];
  let after = 0;
  let limit = DEFAULT_EVENTS_LIMIT;
  const named: string[] = [];
  const ops: EventOp[] = [];
  const once = new Set<string>();
  for (const [name, value] of params) {
    if ((name === '$after' || name === '$limit') && once.has(name)) {
      problems.push({ parameter: name, message: `${name} may be given once` });
      continue;
    }
    once.add(name);
    if (name === '$after') {
      if (WHOLE.test(value)) after = Number(value);
      else problems.push({ parameter: name, message: '$after must be a whole number from 0 (a seq)' });
    } else if (name === '$limit') {
      const n = WHOLE.test(value) ? Number(value) : 0;
      if (n >= 1) limit = Math.min(n, MAX_EVENTS_LIMIT);
      else problems.push({ parameter: name, message: `$limit must be a whole number from 1 (at most ${MAX_EVENTS_LIMIT} are served)` });
    } else if (name === 'collection') {
      if (collections.has(value)) named.push(value);
      else
        problems.push({
          parameter: name,
          message: `no collection is named ${JSON.stringify(value)}; collections: ${[...collections].join(', ')}`,
        });
    } else if (name === 'op') {
      if (isOp(value)) ops.push(value);
      else problems.push({ parameter: name, message: `op must be one of ${EVENT_OPS.join(', ')}` });
    } else problems.push({ parameter: name, message: 'the feed takes only $after, $limit, collection and op' });
  }
  if (problems.length) return { error: new EngineError('invalid-query', 'The query is not valid: see errors.', problems) };
  return {
    value: {
      after,
      limit,
      collections: params.has('collection') ? [...new Set(named)] : undefined,
      ops: params.has('op') ? [...new Set(ops)] : undefined,
    },
  };
}
