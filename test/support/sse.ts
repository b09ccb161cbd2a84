/** A client of Server-Sent Events for tests: reads a streamed answer and splits it into messages. */

export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  /** The comment lines (without the leading colon and space). */
  readonly comments: readonly string[];
}

export interface SseReader {
  readonly status: number;
  readonly headers: Headers;
  /** The next message, or 'end' once the server ended the stream; throws if none comes within `waitMs`. */
  next(waitMs?: number): Promise<SseMessage | 'end'>;
  /** Messages until one matches, the others skipped (keep-alives, say); throws at the end or after `waitMs`. */
  until(match: (m: SseMessage) => boolean, waitMs?: number): Promise<SseMessage>;
  /** Events (messages with data) until `n` came, comments skipped. */
  events(n: number, waitMs?: number): Promise<SseMessage[]>;
  /** Goes away (the client disconnects). */
  close(): void;
}

/** Parses the messages of a stream's text so far; returns them and the unfinished rest. */
export function parseSse(text: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const blocks = text.split(/\r\n\r\n|\n\n|\r\r/);
  const rest = blocks.pop()!;
  for (const block of blocks) {
    const m: { id?: string; event?: string; data?: string; comments: string[] } = { comments: [] };
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(':')) m.comments.push(line.slice(1).trimStart());
      else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') m.data = m.data === undefined ? value : `${m.data}\n${value}`;
        else if (field === 'id' || field === 'event') m[field] = value;
      }
    }
    messages.push(m);
  }
  return { messages, rest };
}

/** Reads messages off a response body (a socket's, or app.request()'s). */
export function sseReader(res: Response, abort: () => void = () => {}): SseReader {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const queue: SseMessage[] = [];
  let rest = '';
  let ended = false;
  let reading: Promise<void> | undefined;
  const fill = async () => {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    const parsed = parseSse(rest + decoder.decode(value, { stream: true }));
    rest = parsed.rest;
    queue.push(...parsed.messages);
  };
  const next = async (waitMs = 10_000): Promise<SseMessage | 'end'> => {
    const deadline = Date.now() + waitMs;
    while (queue.length === 0 && !ended) {
      reading ??= fill().finally(() => (reading = undefined));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
      const got = await Promise.race([reading.then(() => 'read' as const), late]);
      clearTimeout(timer);
      if (got === 'late') throw new Error(`no message within ${waitMs} ms`);
    }
    return queue.length ? queue.shift()! : 'end';
  };
  const until = async (match: (m: SseMessage) => boolean, waitMs = 10_000) => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const m = await next(Math.max(0, deadline - Date.now()));
      if (m === 'end') throw new Error('the stream ended first');
      if (match(m)) return m;
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    until,
    async events(n, waitMs = 10_000) {
      const out: SseMessage[] = [];
      const deadline = Date.now() + waitMs;
      while (out.length < n) out.push(await until((m) => m.data !== undefined, Math.max(0, deadline - Date.now())));
      return out;
    },
    close() {
      abort();
      reader.cancel().catch(() => {});
    },
  };
}

/** Opens a stream over a real socket (fetch), `accept: text/event-stream` plus `headers`. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  return sseReader(res, () => controller.abort());
}
