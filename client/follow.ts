import type { Collection } from './collection.ts';
import { ApiError } from './errors.ts';
import type { Transport } from './transport.ts';
import type { CollectionTypes, Query } from './types.ts';

/** One event of the change feed. */
export interface Change<R> {
  readonly seq: number;
  readonly at: string;
  readonly collection: string;
  readonly id: number;
  readonly op: 'create' | 'update' | 'delete';
  readonly changed: readonly string[];
  readonly record: R;
  readonly user: string | null;
}

/** What `follow` yields: the list's records, once that the list is done, then each change once in seq order. */
export type Followed<R> =
  | { readonly kind: 'record'; readonly record: R }
  | { readonly kind: 'listed'; readonly seq: number }
  | { readonly kind: 'change'; readonly change: Change<R> };

export interface FollowOptions {
  /** `poll`: JSON pages of the feed instead of a stream (where streams do not get through). */
  readonly transport?: 'stream' | 'poll';
  /** How long a poll waits when the feed had nothing new (default 1000 ms). */
  readonly pollMs?: number;
  /** Resume after this seq, with no list first. */
  readonly after?: number;
  readonly signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Splits a stream's text into its events' data and ids; returns them and the unfinished rest. */
export function parseEvents(text: string): { events: { id?: string; data: string }[]; rest: string } {
  const blocks = text.split(/\r\n\r\n|\n\n|\r\r/);
  const rest = blocks.pop()!;
  const events: { id?: string; data: string }[] = [];
  for (const block of blocks) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (data.length) events.push({ ...(id !== undefined ? { id } : {}), data: data.join('\n') });
  }
  return { events, rest };
}

/**
 * Lists, then follows the feed from the list's `X-Change-Seq`: a stream resumed with
 * `Last-Event-ID` after any drop (or polling), each change yielded once, in seq order.
 */
export async function* follow<C extends CollectionTypes>(
  transport: Transport,
  collection: Collection<C>,
  name: string,
  query: Query<C> | undefined,
  options: FollowOptions = {},
): AsyncGenerator<Followed<C['record']>> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let after = options.after;
    if (after === undefined) {
      const search = await collection.search(query, { signal: stop.signal });
      for await (const record of search) yield { kind: 'record', record: record as C['record'] };
      after = search.changeSeq ?? 0;
      yield { kind: 'listed', seq: after };
    }
    let polling = options.transport === 'poll';
    let failures = 0;
    while (!stop.signal.aborted) {
      const feed = new URLSearchParams({ collection: name });
      try {
        if (polling) {
          feed.set('$after', String(after));
          feed.set('$limit', '1000');
          const res = await transport.send('GET', 'events', { query: feed, signal: stop.signal });
          const page = (await res.json()) as Change<C['record']>[];
          for (const change of page) {
            if (change.seq <= after) continue;
            after = change.seq;
            yield { kind: 'change', change };
          }
          failures = 0;
          if (page.length < 1000) await sleep(options.pollMs ?? 1000);
          continue;
        }
        const res = await transport.send('GET', 'events', {
          query: feed,
          headers: { accept: 'text/event-stream', 'last-event-id': String(after) },
          signal: stop.signal,
        });
        if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          // Something on the way answered JSON instead of a stream: poll from here on.
          await res.body?.cancel();
          polling = true;
          continue;
        }
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            const parsed = parseEvents(text + value);
            text = parsed.rest;
            for (const { data } of parsed.events) {
              const change = JSON.parse(data) as Change<C['record']>;
              if (change.seq <= after) continue;
              after = change.seq;
              failures = 0;
              yield { kind: 'change', change };
            }
          }
        } finally {
          reader.cancel().catch(() => {});
        }
      } catch (e) {
        if (stop.signal.aborted) return;
        // A drop (the stream broke, the server unreachable for a while) is resumed; an answer is thrown.
        if (e instanceof ApiError) throw e;
      }
      failures++;
      await sleep(Math.min(5000, 50 * 2 ** Math.min(failures, 7)));
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
