import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WORK_ORDER } from '../support/fixtures.ts';
import { chaosBase as base, chaosEnv, Fleet, pause } from '../support/fleet.ts';
import { BASE, M } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { pgbouncerAvailable, startPgBouncer } from '../support/pgbouncer.ts';

/**
 * Idempotency keys under crashes, CI-sized: a `kill -9` during a stream of keyed POSTs and batches
 * loses no acknowledged write and duplicates none after retries. Clients send POSTs and batches
 * (creates, and a PATCH with if_match of the client's own work order), each with its own
 * Idempotency-Key and a marker in each created record's description, while one `mrs serve`
 * process is killed with SIGKILL and restarted (twice by default). A client sends a request
 * again, same key and body, to any live process until it has an answer that is not a 5xx, a 429
 * or the in-flight 409. A kill rarely lands between a commit and its answer, so clients also
 * stop waiting for some attempts at random, as a client whose timeout fires: then retries meet
 * committed writes every run. At the end every request was answered 2xx, every marker is stored
 * exactly once with the id, Location and ETag its answer gave, each batch whole, and the change
 * feed holds one create event per record and one update per acknowledged batch. A kill between
 * a write's commit and its key's claim, were they two commits, would be as rare: a claim that
 * fails, undoing its write, is tested every time in test/writes/idempotency-atomic.test.ts.
 * Sizes: `CHAOS_SECONDS` (default 4) per database, `CHAOS_KILLS` (default 2) in that time.
 */
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 4);
const CLIENTS = 6;
const KILLS = Number(process.env.CHAOS_KILLS ?? 2);
/** How long after the chaos every request has to get its answer: a bound, not an expectation. */
const SETTLE_MS = 60_000;
const TIMEOUT_MS = SECONDS * 3000 + KILLS * 10_000 + SETTLE_MS + 60_000;
const WORK_ORDERS = `${M}/work_orders`;

/** One keyed request as the client sent it (every attempt the same), and its answer. */
interface Sent {
  readonly client: number;
  readonly key: string;
  readonly path: string;
  readonly text: string;
  /** The descriptions of the records it creates, in order. */
  readonly markers: readonly string[];
  /** A batch's PATCH of the client's own work order: the priority it sets. */
  readonly priority?: number;
  answer?: { status: number; body: any; location: string | null; etag: string | null; replayed: boolean };
}

interface Event {
  seq: number;
  id: number;
  op: string;
  record: { description: string | null; priority: number | null };
}

/** A list for a failure message: its first entries and how many more. */
const few = (xs: string[]) => (xs.length > 20 ? [...xs.slice(0, 20), `and ${xs.length - 20} more`] : xs);

const isInFlight = (status: number, text: string) => status === 409 && text.includes('idempotency-key-in-flight');

async function chaos(env: Record<string, string>, processes: number) {
  const fleet = new Fleet(chaosEnv(env));
  await fleet.start(processes);
  try {
    const headers = { authorization: `Bearer ${await fleet.adminToken()}`, 'content-type': 'application/json' };
    /** A read from any live process, tried again elsewhere when the connection fails. */
    const read = async (path: string): Promise<Response> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fetch(`${fleet.origin()}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
        } catch (e) {
          if (attempt === 20) throw e;
          await pause(50);
        }
      }
    };

    const stats = { attempts: 0, dropped: 0, cut: 0, inFlight: 0, failed: 0, replayed: 0 };
    /** Sends the request until its answer is one to keep, or the deadline passes. */
    const untilAnswered = async (s: Sent, deadline: number) => {
      while (Date.now() < deadline) {
        stats.attempts++;
        const impatient = Math.random() < 0.2;
        const stop = new AbortController();
        const timer = setTimeout(() => stop.abort(), impatient ? Math.random() * 40 : 10_000);
        try {
          const r = await fetch(`${fleet.origin()}${s.path}`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': s.key },
            body: s.text,
            signal: stop.signal,
          });
          const text = await r.text();
          if (r.status >= 500 || r.status === 429 || isInFlight(r.status, text)) {
            if (r.status === 409) stats.inFlight++;
            else stats.failed++;
            await pause(20);
            continue;
          }
          const replayed = r.headers.get('idempotency-replayed') === 'true';
          if (replayed) stats.replayed++;
          s.answer = {
            status: r.status,
            body: JSON.parse(text),
            location: r.headers.get('location'),
            etag: r.headers.get('etag'),
            replayed,
          };
          return;
        } catch {
          // Our own timeout, or a process killed under the request (or already dead): send it again.
          if (stop.signal.aborted) stats.dropped++;
          else stats.cut++;
          await pause(10);
        } finally {
          clearTimeout(timer);
        }
      }
    };

    // Each client's own work order, which its batches PATCH with if_match.
    const own: { id: number; etag: string; priority: number | null }[] = [];
    for (let c = 0; c < CLIENTS; c++) {
      const s: Sent = {
        client: c,
        key: `own-${c}`,
        path: WORK_ORDERS,
        text: JSON.stringify({ ...WORK_ORDER, description: `own-${c}` }),
        markers: [`own-${c}`],
      };
      await untilAnswered(s, Date.now() + SETTLE_MS);
      expect(s.answer?.status).toBe(201);
      own.push({ id: s.answer!.body.id, etag: s.answer!.etag!, priority: null });
    }

    let running = true;
    const sent: Sent[] = [];
    const client = async (c: number) => {
      for (let n = 0; running; n++) {
        const key = `chaos-${c}-${n}`;
        let s: Sent;
        if (n % 2 === 0) {
          s = {
            client: c,
            key,
            path: WORK_ORDERS,
            text: JSON.stringify({ ...WORK_ORDER, description: key, priority: n % 10 }),
            markers: [key],
          };
        } else {
          const markers = Array.from({ length: 1 + (n % 4) }, (_, j) => `${key}/${j}`);
          const operations = [
            ...markers.map((m) => ({ method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, description: m } })),
            { method: 'PATCH', path: `/maintenance/work_orders/${own[c]!.id}`, body: { priority: n }, if_match: own[c]!.etag },
          ];
          s = { client: c, key, path: `${BASE}/batch`, text: JSON.stringify({ operations }), markers, priority: n };
        }
        sent.push(s);
        await untilAnswered(s, Date.now() + SECONDS * 1000 + SETTLE_MS);
        if (s.answer?.status === 200 && s.priority !== undefined) {
          const patched = s.answer.body.at(-1) as { etag: string };
          own[c] = { ...own[c]!, etag: patched.etag, priority: s.priority };
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));

    const stepMs = (SECONDS * 1000) / (KILLS + 1);
    for (let k = 0; k < KILLS; k++) {
      await pause(stepMs);
      await fleet.killOne();
    }
    await pause(stepMs);
    running = false;
    await Promise.all(clients);

    // What the database holds: every work order, page after page of one search.
    const stored: Record<string, any>[] = [];
    const first = await read(`${WORK_ORDERS}?$limit=50`);
    const cursor = first.headers.get('x-cursor');
    stored.push(...((await first.json()) as Record<string, any>[]));
    for (let page = 2; page <= Math.ceil(Number(first.headers.get('x-total')) / 50); page++)
      stored.push(...((await (await read(`${WORK_ORDERS}?$limit=50&$cursor=${cursor}&$page=${page}`)).json()) as Record<string, any>[]));
    const byMarker = new Map<string, Record<string, any>[]>();
    for (const r of stored) byMarker.set(r.description, [...(byMarker.get(r.description) ?? []), r]);

    // Every event of work orders.
    const events: Event[] = [];
    for (let after = 0; ;) {
      const page = (await (await read(`${BASE}/events?collection=work_orders&$after=${after}&$limit=1000`)).json()) as Event[];
      if (page.length === 0) break;
      events.push(...page);
      after = page.at(-1)!.seq;
    }

    const acknowledged = sent.filter((s) => s.answer && s.answer.status < 300);
    const asked = new Set([...own.map((_, c) => `own-${c}`), ...sent.flatMap((s) => s.markers)]);
    const storedIds = new Set(stored.map((r) => r.id as number));
    const found = {
      unanswered: sent.filter((s) => !s.answer).map((s) => s.key),
      refused: sent.filter((s) => s.answer && s.answer.status >= 300).map((s) => `${s.key}: ${s.answer!.status} ${s.answer!.body.type}`),
      missing: [] as string[],
      duplicated: [] as string[],
      /** A marker stored under another id, Location or ETag than its answer gave. */
      unlike: [] as string[],
      /** Records no request asked for. */
      stray: stored.filter((r) => !asked.has(r.description)).map((r) => `${r.id}: ${r.description}`),
      /** Stored records without exactly one create event, or create events of no stored record. */
      createEvents: [] as string[],
      /** Own work orders not stored once, or whose priority, ETag or update events are not those of their client's acknowledged batches. */
      own: [] as string[],
      /** Updates or deletes of records no batch PATCHed. */
      otherEvents: [] as string[],
    };
    const answered: { marker: string; id: number; location?: string; etag: string }[] = [];
    for (const s of acknowledged) {
      const a = s.answer!;
      if (s.priority === undefined) answered.push({ marker: s.markers[0]!, id: a.body.id, location: a.location!, etag: a.etag! });
      else
        s.markers.forEach((marker, j) =>
          answered.push({ marker, id: a.body[j].body.id, location: a.body[j].location, etag: a.body[j].etag }),
        );
    }
    /** The record's ETag as a read answers it now. */
    const etagNow = async (id: number) => {
      const r = await read(`${WORK_ORDERS}/${id}`);
      await r.arrayBuffer();
      return r.headers.get('etag');
    };
    // Eight readers at a time: every record is read once.
    const checks = answered.map(({ marker, id, location, etag }) => async () => {
      const records = byMarker.get(marker) ?? [];
      if (records.length === 0) found.missing.push(marker);
      if (records.length > 1) found.duplicated.push(`${marker} x${records.length}`);
      if (records.length !== 1) return;
      const now = { id: records[0]!.id as number, etag: await etagNow(records[0]!.id) };
      if (now.id !== id || location !== `${WORK_ORDERS}/${id}` || now.etag !== etag)
        found.unlike.push(`${marker}: answered id ${id} ${location} ${etag}, stored id ${now.id} ${now.etag}`);
    });
    const reader = async () => {
      for (let check = checks.shift(); check; check = checks.shift()) await check();
    };
    await Promise.all(Array.from({ length: 8 }, reader));
    const creates = new Map<number, number>();
    for (const e of events) if (e.op === 'create') creates.set(e.id, (creates.get(e.id) ?? 0) + 1);
    for (const r of stored)
      if (creates.get(r.id) !== 1) found.createEvents.push(`${r.description}: ${creates.get(r.id) ?? 0} create events`);
    for (const id of creates.keys()) if (!storedIds.has(id)) found.createEvents.push(`create event of id ${id}, not stored`);
    for (let c = 0; c < CLIENTS; c++) {
      const batches = acknowledged.filter((s) => s.client === c && s.priority !== undefined).map((s) => s.priority);
      const updates = events.filter((e) => e.op === 'update' && e.id === own[c]!.id).map((e) => e.record.priority);
      const records = byMarker.get(`own-${c}`) ?? [];
      const record = records.length === 1 && records[0]!.id === own[c]!.id ? records[0] : undefined;
      if (
        record?.priority !== own[c]!.priority ||
        (await etagNow(own[c]!.id)) !== own[c]!.etag ||
        JSON.stringify(updates) !== JSON.stringify(batches)
      )
        found.own.push(
          `own-${c}: stored ${records.length} times, priority ${record?.priority} (batches said ${own[c]!.priority}), updates ${JSON.stringify(updates)} for batches ${JSON.stringify(batches)}`,
        );
    }
    for (const e of events)
      if (e.op !== 'create' && !own.some((o) => o.id === e.id)) found.otherEvents.push(`${e.op} of ${e.id}: ${e.record.description}`);
    for (const k of Object.keys(found) as (keyof typeof found)[]) found[k] = few(found[k]);
    return { found, requests: sent.length, records: answered.length, stats };
  } catch (e) {
    throw await fleet.stopAfter(e);
  } finally {
    await fleet.stop();
  }
}

function expectExactlyOnce(outcome: Awaited<ReturnType<typeof chaos>>) {
  expect(outcome.found).toEqual({
    unanswered: [],
    refused: [],
    missing: [],
    duplicated: [],
    unlike: [],
    stray: [],
    createEvents: [],
    own: [],
    otherEvents: [],
  });
  // The chaos happened: enough requests, some cut by a kill, some dropped by the client, and retries that met a committed write.
  expect(outcome.requests).toBeGreaterThan(20);
  expect(outcome.stats.cut).toBeGreaterThan(0);
  expect(outcome.stats.dropped).toBeGreaterThan(0);
  expect(outcome.stats.replayed).toBeGreaterThan(0);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('Idempotency-Key retries under kill -9', () => {
  it.skipIf(!TEST_DATABASE_URL)(
    'three processes on one PostgreSQL database, one killed and restarted: every acknowledged write stored once',
    async () => {
      const db = await freshPostgresDatabase();
      cleanups.push(db.drop);
      expectExactlyOnce(await chaos({ ...base(), DATABASE_URL: db.url }, 3));
    },
    TIMEOUT_MS,
  );

  it.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())(
    'the same through PgBouncer in transaction mode (the key claimed in the write transaction, not a session)',
    async () => {
      const db = await freshPostgresDatabase();
      cleanups.push(db.drop);
      const bouncer = await startPgBouncer(db.url, { poolSize: 4 });
      cleanups.push(() => bouncer.stop());
      expectExactlyOnce(
        await chaos({ ...base(), DATABASE_URL: bouncer.url, MIGRATE_DATABASE_URL: db.url, PG_PREPARED_STATEMENTS: 'false' }, 3),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'one process on SQLite, killed and restarted: every acknowledged write stored once',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mrs-idem-chaos-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      expectExactlyOnce(await chaos({ ...base(), DATA_DIR: dir }, 1));
    },
    TIMEOUT_MS,
  );
});
