import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, defineResource, string } from '../../engine/index.ts';
import { DATABASES, type DatabaseName } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';
import { sseReader, type SseReader } from '../support/sse.ts';
import { NUMBER_AFTER_MS } from '../../engine/dialects/postgres/event-log.ts';

/**
 * SPEC 9: "A stream never holds a database connection while it waits." Waiting streams of a
 * tenant share one poll of the feed's highest seq (engine/events/feed-watcher.ts): however many
 * wait, the database sees that poll and nothing else until something changes.
 */
const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true }) } });

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

async function database(kind: DatabaseName): Promise<{ db: Kysely<any>; log: string[] }> {
  const log: string[] = [];
  const onLog = (e: LogEvent) => void (e.level === 'query' && log.push(e.query.sql));
  if (kind === 'sqlite')
    return { db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }), log: onLog }), log };
  const fresh = await freshPostgresDatabase();
  // One connection in the pool: three streams waiting on it leave it free for a write.
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 1) }), log: onLog });
  drops.push(fresh.drop);
  return { db, log };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('waiting event streams', () => {
  it.each(DATABASES)('run no statement besides the shared poll, and hold no connection [%s]', async (kind) => {
    const { db, log } = await database(kind);
    const engine = createEngine({ db, resources: [tasks], basePath: '/api', eventsHeartbeatS: 3600 });
    await engine.migrate();
    const post = (title: string) =>
      engine.fetch(
        new Request('http://h/api/maintenance/tasks', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title }),
        }),
      );
    expect((await post('first')).status).toBe(201);
    const streams: SseReader[] = [];
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const res = await engine.fetch(
        new Request('http://h/api/events', { headers: { accept: 'text/event-stream' }, signal: controller.signal }),
      );
      const s = sseReader(res, () => controller.abort());
      expect((await s.events(1)).map((m) => m.id)).toEqual(['1']);
      streams.push(s);
    }
    const polls = log.length;
    // Long enough for several polls: what runs meanwhile is the poll of the highest seq, alone.
    await pause(1500);
    const waiting = log.slice(polls);
    expect(waiting.length).toBeGreaterThan(0);
    expect(new Set(waiting).size).toBe(1);
    // The highest seq, not the events themselves; on PostgreSQL the poll also numbers what came
    // unnumbered (dialects/postgres/event-log.ts), looking for it in the index of unnumbered events.
    if (kind === 'sqlite') {
      expect(waiting[0]).toMatch(/^select /i);
      expect(waiting[0]).not.toMatch(/mrs_events"? /);
    } else expect(waiting[0]).toMatch(/^with mrs_c0 .* where seq is null and xid >= \(select x from mrs_c0\)\s+order by pos/is);

    // A change wakes every stream; each reads it (a write on the one pooled connection got through).
    expect((await post('second')).status).toBe(201);
    for (const s of streams) expect((await s.events(1)).map((m) => m.id)).toEqual(['2']);
    for (const s of streams) s.close();
    while (engine.streams.open > 0) await pause(20);
    // Then the poll stops too (past the numbering the write asked for, a moment after it: PostgreSQL).
    await pause(3 * NUMBER_AFTER_MS);
    const after = log.length;
    await pause(800);
    expect(log.slice(after)).toEqual([]);
    await engine.close();
  });
});
