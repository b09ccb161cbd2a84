import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../server/node-server.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem, makeNote, makeWorkOrder, SERVICE_REQUEST } from '../support/fixtures.ts';
import { BASE, DATABASES, describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';
import { openSse, sseReader, type SseMessage, type SseReader } from '../support/sse.ts';

/** `GET {base}/events` with `Accept: text/event-stream` (SPEC 9, "Streaming"), over real sockets. */
const EVENTS = `${BASE}/events`;

const seqOf = (r: { headers: Headers }) => Number(r.headers.get('x-change-seq'));
const eventOf = (m: SseMessage) => JSON.parse(m.data!);

/** Waits until `check` holds, looking every 20 ms (no timing is asserted: the test's timeout bounds it). */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

/** The service of `h` listening on a port of its own, for as long as the block runs. */
function overSocket(h: () => Harness) {
  let l: Listening;
  const opened: SseReader[] = [];
  beforeAll(async () => {
    l = await listen(h().service);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await new Promise<void>((resolve) => l.server.close(() => resolve()));
  });
  return {
    url: (path: string) => `http://127.0.0.1:${l.port}${path}`,
    async open(path: string, headers: Record<string, string> = {}, token?: string) {
      const s = await openSse(`http://127.0.0.1:${l.port}${path}`, { ...h().authHeaders(token), ...headers });
      opened.push(s);
      return s;
    },
  };
}

describeEachDatabase(
  'the change feed as a stream',
  (h) => {
    const sock = overSocket(h);

    it('replays the events after $after, then each new one as it commits, in the SSE format', async () => {
      const start = seqOf(await h().get(EVENTS));
      const wo = await makeWorkOrder(h(), { priority: 1 });
      await h().patch(`${M}/work_orders/${wo.id}`, { priority: 2 });
      const s = await sock.open(`${EVENTS}?$after=${start}`);
      expect(s.status).toBe(200);
      expect(s.headers.get('content-type')).toBe('text/event-stream');
      expect(s.headers.get('cache-control')).toBe('no-cache');
      const replayed = await s.events(2);
      // The same events as the JSON form, each: id (its seq), event: change, one data line.
      const pages = (await h().get(`${EVENTS}?$after=${start}`)).body;
      expect(replayed.map((m) => [m.id, m.event, eventOf(m)])).toEqual(pages.map((e: any) => [String(e.seq), 'change', e]));
      // Live: a change made now arrives on the open stream.
      await h().del(`${M}/work_orders/${wo.id}`);
      const [live] = await s.events(1);
      expect(eventOf(live!)).toMatchObject({ seq: start + 3, op: 'delete', id: wo.id, changed: ['deleted'] });
      expect(live!.id).toBe(String(start + 3));
      s.close();
    });

    it('resumes after Last-Event-ID, which wins over $after', async () => {
      const start = seqOf(await h().get(EVENTS));
      const a = await makeWorkOrder(h());
      const b = await makeWorkOrder(h());
      const s = await sock.open(`${EVENTS}?$after=0`, { 'last-event-id': String(start + 1) });
      const [first] = await s.events(1);
      expect([first!.id, eventOf(first!).id]).toEqual([String(start + 2), b.id]);
      expect(a.id).not.toBe(b.id);
      s.close();
    });

    it('answers 400 for a bad Last-Event-ID or query, naming each, before any stream', async () => {
      const res = await fetch(sock.url(`${EVENTS}?$after=x&op=upsert`), {
        headers: { accept: 'text/event-stream', 'last-event-id': 'abc', ...h().authHeaders() },
      });
      expectProblem({ status: res.status, headers: res.headers, body: await res.json(), text: '' }, 400, ['$after', 'op', 'Last-Event-ID']);
      for (const bad of ['-1', '1.5', '', 'x1']) {
        const r = await h().get(EVENTS, { accept: 'text/event-stream', 'last-event-id': bad });
        expectProblem(r, 400, ['Last-Event-ID']);
        expect(r.body.errors[0]).toMatchObject({ header: 'Last-Event-ID' }); // a header, as If-Match's
      }
      expectProblem(await h().as(null).get(EVENTS, { accept: 'text/event-stream' }), 401);
    });

    it('filters by collection and op, and leaves out collections the roles cannot read', async () => {
      await makeRole(h().service, 'demo.main', 'wo_stream_reader', [{ collection: 'work_orders', action: 'read' }]);
      const limited = await h().login({ username: 'walt', roles: ['wo_stream_reader'] });
      const start = seqOf(await h().get(EVENTS));
      const notesOnly = await sock.open(`${EVENTS}?$after=${start}&collection=notes&collection=service_requests`);
      const updates = await sock.open(`${EVENTS}?$after=${start}&op=update`);
      const walt = await sock.open(`${EVENTS}?$after=${start}`, {}, limited.token);
      const wo = await makeWorkOrder(h());
      const note = await makeNote(h(), wo.id);
      const sr = (await h().post(`${M}/service_requests`, SERVICE_REQUEST)).body;
      await h().patch(`${M}/work_orders/${wo.id}`, { priority: 9 });
      const ids = (ms: SseMessage[]) => ms.map((m) => [eventOf(m).collection, eventOf(m).id, eventOf(m).op]);
      expect(ids(await notesOnly.events(2))).toEqual([
        ['notes', note.id, 'create'],
        ['service_requests', sr.id, 'create'],
      ]);
      expect(ids(await updates.events(1))).toEqual([['work_orders', wo.id, 'update']]);
      expect(ids(await walt.events(2))).toEqual([
        ['work_orders', wo.id, 'create'],
        ['work_orders', wo.id, 'update'],
      ]);
      // Nothing else came: the next change of a note reaches the notes stream right after the others.
      expect((await h().patch(`${M}/notes/${note.id}`, { note: 'again' })).status).toBe(200);
      expect(ids(await notesOnly.events(1))).toEqual([['notes', note.id, 'update']]);
      for (const s of [notesOnly, updates, walt]) s.close();
    });

    it('sends a keep-alive comment when nothing happens', async () => {
      const s = await sock.open(`${EVENTS}?$after=${seqOf(await h().get(EVENTS))}`);
      for (let i = 0; i < 3; i++)
        expect(await s.until((m) => m.comments.includes('keep-alive'))).toMatchObject({ comments: ['keep-alive'] });
      s.close();
    });

    it('answers HEAD with the stream headers and no body', async () => {
      const r = await h().request('HEAD', EVENTS, { headers: { accept: 'text/event-stream' } });
      expect([r.status, r.text, r.headers.get('content-type')]).toEqual([200, '', 'text/event-stream']);
    });

    it('counts its streams in /metrics and forgets one whose client went away', async () => {
      const open = async () => {
        const text = (await h().get('/metrics')).text;
        return Number(/^mrs_events_streams_open (\d+)$/m.exec(text)![1]);
      };
      const before = h().service.engine.streams.open;
      expect(await open()).toBe(before);
      const s = await sock.open(EVENTS);
      await s.next();
      expect(await open()).toBe(before + 1);
      s.close();
      await eventually(async () => (await open()) === before);
    });
  },
  { env: { EVENTS_HEARTBEAT_S: '1', PORT: '0' } },
);

describeEachDatabase(
  'a stream counts once against the rate limit',
  (h) => {
    const sock = overSocket(h);
    it('the stream is one call, however many events it carries', async () => {
      const me = await h().login();
      const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));
      const before = remaining(await h().as(me.token).get(`${EVENTS}?$limit=1`));
      const s = await sock.open(EVENTS, {}, me.token);
      expect(remaining(s)).toBe(before - 1);
      const start = seqOf(s);
      for (let i = 0; i < 3; i++) await makeWorkOrder(h());
      expect((await s.events(3)).map((m) => Number(m.id))).toEqual([start + 1, start + 2, start + 3].filter((x) => x > 0));
      expect(remaining(await h().as(me.token).get(`${EVENTS}?$limit=1`))).toBe(before - 2);
      s.close();
    });
  },
  { env: { RATE_LIMIT_MAX: '10', PORT: '0' } },
);

const clock = { t: Date.now() };
describeEachDatabase(
  'a stream from a position past retention',
  (h) => {
    it('is 410 events-gone, as problem+json, before any stream', async () => {
      await makeWorkOrder(h());
      clock.t += 120_000;
      await h().get(EVENTS); // the sweep
      const r = await h().get(`${EVENTS}?$after=0`, { accept: 'text/event-stream' });
      expectProblem(r, 410);
      expect(r.body.type).toMatch(/events-gone$/);
      const resumed = await h().get(EVENTS, { accept: 'text/event-stream', 'last-event-id': '0' });
      expectProblem(resumed, 410);
    });
  },
  { env: { EVENTS_RETENTION_S: '60' }, now: () => clock.t },
);

for (const db of DATABASES)
  describe(`a stream and its token [${db}]`, () => {
    it('ends when its token expires', async () => {
      const started = await startHarness(db, { env: { TOKEN_TTL_S: '2', PORT: '0' } });
      const l = await listen(started.harness.service);
      try {
        const { token } = await started.harness.login();
        const s = await openSse(`http://127.0.0.1:${l.port}${EVENTS}`, started.harness.authHeaders(token));
        expect(s.status).toBe(200);
        // Keep-alives until the end (default heartbeat: none come in 2 s), then the end itself.
        let m: SseMessage | 'end';
        do m = await s.next(10_000);
        while (m !== 'end');
        expect(m).toBe('end');
        // The expired token is refused: the client authenticates again and resumes with Last-Event-ID.
        expect((await fetch(`http://127.0.0.1:${l.port}${EVENTS}`, { headers: started.harness.authHeaders(token) })).status).toBe(401);
      } finally {
        await l.stop();
        await started.cleanup();
      }
    });

    it('carries the changes another service makes on the same database', async () => {
      const first = await startHarness(db, { env: { PORT: '0' } });
      const second = await startHarness(db, { reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
      const l = await listen(first.harness.service);
      try {
        const start = seqOf(await first.harness.get(EVENTS));
        const s = await openSse(`http://127.0.0.1:${l.port}${EVENTS}?$after=${start}`, first.harness.authHeaders());
        await s.next(); // the stream is open and waiting
        const made = await makeWorkOrder(second.harness);
        await second.harness.patch(`${M}/work_orders/${made.id}`, { priority: 5 });
        const got = (await s.events(2)).map((m) => [Number(m.id), eventOf(m).id, eventOf(m).op]);
        expect(got).toEqual([
          [start + 1, made.id, 'create'],
          [start + 2, made.id, 'update'],
        ]);
        s.close();
      } finally {
        await l.stop();
        await second.stop(true);
        await first.cleanup();
      }
    });

    it('ends cleanly when the server stops, which does not wait for it', async () => {
      const started = await startHarness(db, { env: { PORT: '0' } });
      const l = await listen(started.harness.service);
      try {
        const s = await openSse(`http://127.0.0.1:${l.port}${EVENTS}`, started.harness.authHeaders());
        await s.next();
        expect(started.harness.service.engine.streams.open).toBe(1);
        await l.stop();
        // A clean end of the body (not a cut connection, which fails the read).
        let m: SseMessage | 'end';
        do m = await s.next();
        while (m !== 'end');
        expect(started.harness.service.engine.streams.open).toBe(0);
      } finally {
        await started.cleanup();
      }
    });
  });

describe('a stream read through app.request()', () => {
  it('is a ReadableStream like any other answer', async () => {
    const started = await startHarness('sqlite');
    try {
      const h = started.harness;
      const start = seqOf(await h.get(EVENTS));
      const wo = await makeWorkOrder(h);
      const controller = new AbortController();
      const res = await h.service.app.request(`${EVENTS}?$after=${start}`, {
        headers: { accept: 'text/event-stream', ...h.authHeaders() },
        signal: controller.signal,
      });
      const s = sseReader(res, () => controller.abort());
      const [e] = await s.events(1);
      expect(eventOf(e!)).toMatchObject({ seq: start + 1, id: wo.id, op: 'create' });
      s.close();
      await eventually(() => h.service.engine.streams.open === 0);
    } finally {
      await started.stop();
    }
  });
});

describeEachDatabase('the stream in openapi.json', (h) => {
  it('declares the text/event-stream answer of the events path, and the document stays valid', async () => {
    const doc = (await h().request('GET', `${BASE}/openapi.json`, { token: null })).body;
    const { validate, compileErrors } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const stream = doc.paths[`${EVENTS}`].get.responses['200'].content['text/event-stream'];
    expect(stream.schema.description).toMatch(/Last-Event-ID/);
    expect(stream.example).toMatch(/^id: \d+\nevent: change\ndata: \{.*\}\n\n/);
  });
});
