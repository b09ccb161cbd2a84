import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WORK_ORDER } from '../support/fixtures.ts';
import { BASE, M } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { pgbouncerAvailable, startPgBouncer } from '../support/pgbouncer.ts';
import { chaosBase as base, chaosEnv, Fleet, pause, pick } from '../support/fleet.ts';
import { parseSse } from '../support/sse.ts';

/**
 * The feed's promise under crashes, CI-sized: several `mrs serve` processes on one database take random
 * creates, PATCHes, PUTs and deletes from several clients while one process is killed with
 * SIGKILL (and restarted) and event streams are cut at random. A consumer that lists first and
 * then follows the feed from the list's X-Change-Seq (from 0 where lists do not answer it) by
 * polling and by SSE with Last-Event-ID rebuilds every record exactly as the database holds it
 * at the end: none missed, none out of order; duplicates (a resumed stream repeating nothing)
 * are counted too. Sizes: `CHAOS_SECONDS` (default 4) per database.
 */
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 4);
const WRITERS = 4;
const EVENTS = `${BASE}/events`;

interface Event {
  seq: number;
  collection: string;
  id: number;
  op: string;
  record: Record<string, unknown>;
}

/** What a follower saw, in arrival order; the checks count misses, duplicates and disorder. */
class Follower {
  readonly seen: Event[] = [];
  last = 0;
  add(e: Event) {
    this.seen.push(e);
    if (e.seq > this.last) this.last = e.seq;
  }
  /** Duplicates dropped by seq; out-of-order: a seq below one seen before it (and new). */
  report() {
    const bySeq = new Map<number, Event>();
    let outOfOrder = 0;
    let duplicates = 0;
    let top = 0;
    for (const e of this.seen) {
      if (bySeq.has(e.seq)) {
        duplicates++;
        continue;
      }
      if (e.seq < top) outOfOrder++;
      top = Math.max(top, e.seq);
      bySeq.set(e.seq, e);
    }
    return { events: [...bySeq.values()], outOfOrder, duplicates };
  }
}

async function chaos(env: Record<string, string>, processes: number, kills: number) {
  const fleet = new Fleet(chaosEnv(env));
  await fleet.start(processes);
  try {
    const token = await fleet.adminToken();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    /** A call to any live process; a refused or cut connection is tried again elsewhere (reads) or given up (writes). */
    const call = async (method: string, path: string, body?: unknown, retry = true): Promise<Response | undefined> => {
      for (;;) {
        try {
          return await fetch(`${fleet.origin()}${path}`, {
            method,
            headers,
            signal: AbortSignal.timeout(10_000),
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
        } catch {
          await pause(50);
          if (!retry) return undefined;
        }
      }
    };

    // Some records before the consumer lists.
    const ids: number[] = [];
    for (let i = 0; i < 10; i++)
      ids.push(((await (await call('POST', `${M}/work_orders`, { ...WORK_ORDER, priority: i }))!.json()) as { id: number }).id);

    // The consumer lists first, and follows from the list's X-Change-Seq (0 where a list does not say).
    /** Every work order, deleted ones too, page after page of one search; and the search's X-Change-Seq. */
    const listAll = async () => {
      const records = new Map<number, Record<string, unknown>>();
      const first = (await call('GET', `${M}/work_orders?$deleted=true&$limit=50`))!;
      const cursor = first.headers.get('x-cursor');
      const pages = Math.ceil(Number(first.headers.get('x-total')) / 50);
      for (const r of (await first.json()) as Record<string, unknown>[]) records.set(r.id as number, r);
      for (let page = 2; page <= pages; page++) {
        const r = (await call('GET', `${M}/work_orders?$deleted=true&$limit=50&$cursor=${cursor}&$page=${page}`))!;
        expect(r.status).toBe(200);
        for (const record of (await r.json()) as Record<string, unknown>[]) records.set(record.id as number, record);
      }
      return { records, changeSeq: Number(first.headers.get('x-change-seq') ?? 0) };
    };
    const listed = await listAll();
    const rebuilt = listed.records;
    const from = listed.changeSeq;
    if (from === 0) rebuilt.clear(); // without X-Change-Seq the feed from 0 holds everything

    let running = true;
    /** The feed's end once the writers stopped: the followers run until they reached it. */
    let target = Infinity;
    const poller = new Follower();
    poller.last = from;
    const streamer = new Follower();
    streamer.last = from;
    let cuts = 0;

    const polling = (async () => {
      while (running || poller.last < target) {
        const r = await call('GET', `${EVENTS}?$after=${poller.last}&$limit=100`);
        if (r!.status !== 200) continue;
        const page = (await r!.json()) as Event[];
        for (const e of page) poller.add(e);
        if (page.length === 0) await pause(100);
      }
    })();

    const streaming = (async () => {
      while (running || streamer.last < target) {
        const cut = new AbortController();
        const timer = setTimeout(
          () => {
            cuts++;
            cut.abort();
          },
          200 + Math.random() * 1500,
        );
        const resume: Record<string, string> = streamer.last > from ? { 'last-event-id': String(streamer.last) } : {};
        try {
          const res = await fetch(`${fleet.origin()}${EVENTS}?$after=${from}`, {
            headers: { ...headers, accept: 'text/event-stream', ...resume },
            signal: cut.signal,
          });
          if (res.status !== 200) continue;
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          let rest = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const parsed = parseSse(rest + decoder.decode(value, { stream: true }));
            rest = parsed.rest;
            for (const m of parsed.messages) if (m.data !== undefined) streamer.add(JSON.parse(m.data) as Event);
          }
        } catch {
          // Cut by us, or by a killed process: reconnect with Last-Event-ID.
        } finally {
          clearTimeout(timer);
        }
      }
    })();

    const writes = { done: 0 };
    const writer = async () => {
      while (running) {
        const op = pick(['create', 'create', 'patch', 'patch', 'put', 'delete']);
        if (op === 'create' || ids.length === 0) {
          const r = await call('POST', `${M}/work_orders`, { ...WORK_ORDER, priority: writes.done % 10 }, false);
          if (r?.status === 201) ids.push(((await r.json()) as { id: number }).id);
        } else if (op === 'patch')
          await call('PATCH', `${M}/work_orders/${pick(ids)}`, { priority: Math.floor(Math.random() * 100) }, false);
        else if (op === 'put')
          await call('PUT', `${M}/work_orders/${pick(ids)}`, { ...WORK_ORDER, priority: 5, description: `put ${writes.done}` }, false);
        else await call('DELETE', `${M}/work_orders/${pick(ids)}`, undefined, false);
        writes.done++;
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);

    const stepMs = (SECONDS * 1000) / (kills + 1);
    for (let k = 0; k < kills; k++) {
      await pause(stepMs);
      await fleet.killOne();
    }
    await pause(stepMs);
    running = false;
    await Promise.all(writers);
    // The end of the feed now that no one writes; both followers catch up with it.
    target = Number((await call('GET', `${EVENTS}?$after=0&$limit=1`))!.headers.get('x-change-seq'));
    await Promise.all([polling, streaming]);

    const database = (await listAll()).records;
    // Every seq committed, as one reader sees the whole feed after the fact.
    const all: number[] = [];
    for (let after = from; ;) {
      const page = (await (await call('GET', `${EVENTS}?$after=${after}&$limit=1000`))!.json()) as Event[];
      if (page.length === 0) break;
      all.push(...page.map((e) => e.seq));
      after = page[page.length - 1]!.seq;
    }

    const results = [poller, streamer].map((f) => {
      const { events, outOfOrder, duplicates } = f.report();
      const records = new Map(rebuilt);
      for (const e of events) records.set(e.id, e.record);
      const seqs = new Set(events.map((e) => e.seq));
      return {
        missed: all.filter((s) => !seqs.has(s)).length,
        extra: events.filter((e) => !all.includes(e.seq)).length,
        outOfOrder,
        duplicates,
        records,
      };
    });
    return { writes: writes.done, events: all.length, cuts, database, results };
  } catch (e) {
    throw await fleet.stopAfter(e);
  } finally {
    await fleet.stop();
  }
}

function expectExact(outcome: Awaited<ReturnType<typeof chaos>>) {
  expect(outcome.writes).toBeGreaterThan(20);
  expect(outcome.events).toBeGreaterThan(20);
  expect(outcome.cuts).toBeGreaterThan(0);
  for (const r of outcome.results) {
    expect({ missed: r.missed, extra: r.extra, outOfOrder: r.outOfOrder }).toEqual({ missed: 0, extra: 0, outOfOrder: 0 });
    expect(r.records).toEqual(outcome.database);
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the feed under chaos', () => {
  it.skipIf(!TEST_DATABASE_URL)(
    'three processes on one PostgreSQL database, one killed twice, streams cut: every record rebuilt exactly',
    async () => {
      const db = await freshPostgresDatabase();
      cleanups.push(db.drop);
      const outcome = await chaos({ ...base(), DATABASE_URL: db.url }, 3, 2);
      expectExact(outcome);
    },
    120_000,
  );

  it.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())(
    'the same through PgBouncer in transaction mode (the poll, not LISTEN, sees every commit)',
    async () => {
      const db = await freshPostgresDatabase();
      cleanups.push(db.drop);
      const bouncer = await startPgBouncer(db.url, { poolSize: 4 });
      cleanups.push(() => bouncer.stop());
      const outcome = await chaos(
        { ...base(), DATABASE_URL: bouncer.url, MIGRATE_DATABASE_URL: db.url, PG_PREPARED_STATEMENTS: 'false' },
        3,
        2,
      );
      expectExact(outcome);
    },
    120_000,
  );

  it('one process on SQLite, killed and restarted, streams cut: every record rebuilt exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-chaos-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const outcome = await chaos({ ...base(), DATA_DIR: dir }, 1, 1);
    expectExact(outcome);
  }, 120_000);
});
