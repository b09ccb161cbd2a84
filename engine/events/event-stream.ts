import { eventJson, type EventPage, type StoredEvent } from './event-log.ts';
import type { FeedWatcher } from './feed-watcher.ts';
import type { OpenStreams } from './open-streams.ts';

/** The comment a stream sends when it has had nothing to say for a heartbeat. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** setTimeout's longest delay; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One event as Server-Sent Events: `id` (its seq, what a client resumes from as Last-Event-ID),
 * `event: change` and the event's JSON as one `data` line. JSON text cannot hold a raw line break
 * inside a string, so one outside a string is only layout and may be dropped.
 */
export function sseEvent(e: StoredEvent): string {
  let json = eventJson(e);
  if (json.includes('\n') || json.includes('\r')) json = json.replace(/[\r\n]/g, '');
  return `id: ${e.seq}\nevent: change\ndata: ${json}\n\n`;
}

export interface EventStreamOptions {
  /** The position the client follows from (events with a greater seq). */
  readonly after: number;
  /** The first page after `after`, read before the answer was made (so its errors were the answer). */
  readonly first: EventPage;
  /** The page after a position (the request's filters, roles and retention applied). */
  readonly read: (after: number) => Promise<EventPage>;
  /** How many events `read` answers at most. */
  readonly pageSize: number;
  /** The tenant's feed watcher: the stream learns of new events from it, running no query while it waits. */
  readonly watcher: FeedWatcher;
  /** A comment goes out when nothing did for this long. */
  readonly heartbeatMs: number;
  /** When the stream ends (the token's expiry, epoch ms); undefined: only when ended otherwise. */
  readonly endsAt?: number | undefined;
  /** Ends the stream (the client went away). */
  readonly signal?: AbortSignal | undefined;
  /** Where the stream is counted while open (and ended from by endAll). */
  readonly open?: OpenStreams | undefined;
  /** A read that failed otherwise than by retention (the stream ends; its client resumes). */
  readonly onError?: (e: unknown) => void;
}

export interface EventStream {
  readonly body: ReadableStream<Uint8Array>;
  /** Ends the stream: what was sent stays sent, the client reconnects with Last-Event-ID. */
  end(): void;
}

/**
 * A tenant's change feed as a stream of Server-Sent Events: the events after `after`, read in
 * pages, then each new one when the watcher says the feed rose past the stream's position. It
 * reads only when asked for more (a slow client holds it back, nothing piles up), and while it
 * waits it holds no database connection. Ends at `endsAt`, on `end()`, when the client goes
 * away, or when a read fails (the position fell behind retention, the database went away): the
 * client resumes from its last id.
 */
export function eventStream(o: EventStreamOptions): EventStream {
  const encoder = new TextEncoder();
  let position = o.after;
  let latest = o.first.highest;
  let pending: EventPage | undefined = o.first;
  let lastWrite = Date.now();
  let ended = false;
  let wake: (() => void) | undefined;
  const rouse = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const stopListening = o.watcher.listen((highest) => {
    if (highest > latest) latest = highest;
    if (latest > position) rouse();
  });
  const forget = o.open?.add(() => end());
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const expireAt = (endsAt: number) => {
    const wait = endsAt - Date.now();
    if (wait <= 0) return end();
    expiry = setTimeout(() => expireAt(endsAt), Math.min(wait, MAX_TIMER_MS));
  };
  const end = () => {
    if (ended) return;
    ended = true;
    stopListening();
    if (expiry !== undefined) clearTimeout(expiry);
    o.signal?.removeEventListener('abort', end);
    rouse();
    forget?.();
  };
  if (o.endsAt !== undefined) expireAt(o.endsAt);
  if (o.signal?.aborted) end();
  else o.signal?.addEventListener('abort', end);

  /** Until the feed rises past the position, a heartbeat is due, or the stream ends. */
  const waitForNews = () =>
    new Promise<'news' | 'beat'>((resolve) => {
      const beat = setTimeout(
        () => {
          wake = undefined;
          resolve('beat');
        },
        Math.max(0, o.heartbeatMs - (Date.now() - lastWrite)),
      );
      wake = () => {
        clearTimeout(beat);
        resolve('news');
      };
    });

  /** The next text to send; undefined once the stream ended. */
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      if (ended) return undefined;
      let page = pending;
      pending = undefined;
      if (!page && latest > position) {
        try {
          page = await o.read(position);
        } catch (e) {
          o.onError?.(e);
          end();
          return undefined;
        }
      }
      if (page) {
        if (page.highest > latest) latest = page.highest;
        const { events } = page;
        if (events.length > 0) position = events[events.length - 1]!.seq;
        // A page that is not full holds every matching event up to the highest seq read with it.
        if (events.length < o.pageSize && page.highest > position) position = page.highest;
        if (events.length > 0) {
          lastWrite = Date.now();
          return events.map(sseEvent).join('');
        }
        // Something at once, so that every host sends the answer's head now, not at the first event.
        if (page === o.first) return KEEP_ALIVE;
        continue;
      }
      const why = await waitForNews();
      if (ended) return undefined;
      if (why === 'beat') {
        lastWrite = Date.now();
        return KEEP_ALIVE;
      }
    }
  };

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const text = await next();
      if (text !== undefined) return controller.enqueue(encoder.encode(text));
      try {
        controller.close();
      } catch {
        // Already cancelled by the reader: nothing to close.
      }
    },
    cancel: end,
  });
  return { body, end };
}
