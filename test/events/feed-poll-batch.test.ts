import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { allowAll, createEngine, defineResource, string, tenantDb, type TenantDb } from '../../engine/index.ts';
import { feedWatcher, POLL_INTERVAL_MS } from '../../engine/events/feed-watcher.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../support/pg.ts';

/**
 * Following many tenants' feeds costs what their changes cost: on PostgreSQL the polls of every
 * followed schema of a database are one statement (engine/dialects/postgres/highest-batch.ts).
 * SQLite keeps a file per tenant, so a poll per followed file there is inherent.
 */
const notes = defineResource({ name: 'notes', fields: { text: string({ required: true }) } });
const TENANTS = 20;
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it.skipIf(!TEST_DATABASE_URL)(
  'twenty followed schemas, idle, are polled by one statement an interval; a write reaches its followers',
  async () => {
    const fresh = await freshPostgresDatabase();
    const log: string[] = [];
    const onLog = (e: LogEvent) => void (e.level === 'query' && log.push(e.query.sql));
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 4) }), log: onLog });
    drops.push(async () => {
      await db.destroy();
      await fresh.drop();
    });
    let current: TenantDb | undefined;
    const engine = createEngine({
      resources: [notes],
      basePath: '/api',
      resolveCaller: async () => ({ tenant: current!, can: allowAll() }),
    });
    const tenants: TenantDb[] = [];
    for (let i = 0; i < TENANTS; i++) {
      await db.schema.createSchema(`t${i}`).execute();
      const t = tenantDb(db, { key: `t${i}`, schema: `t${i}` });
      await engine.migrate(t);
      tenants.push(t);
    }
    const seen = tenants.map(() => [] as number[]);
    const stops = tenants.map((t, i) => feedWatcher(t).listen((h) => seen[i]!.push(h)));
    try {
      await sleep(POLL_INTERVAL_MS * 3);
      expect(seen.every((s) => s.length === 1 && s[0] === 0)).toBe(true);
      log.length = 0;
      await sleep(POLL_INTERVAL_MS * 8);
      const polls = log.filter((q) => q.includes('mrs_event_counter')).length;
      // One statement an interval for all twenty (a slow machine may split an instant in two).
      expect(polls).toBeGreaterThan(0);
      expect(polls).toBeLessThanOrEqual(8 * 2);
      current = tenants[7];
      const res = await engine.fetch(
        new Request('http://h/api/maintenance/notes', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'hello' }),
        }),
      );
      expect(res.status).toBe(201);
      const until = performance.now() + 5000;
      while (seen[7]!.at(-1) !== 1 && performance.now() < until) await sleep(20);
      expect(seen[7]).toEqual([0, 1]);
      expect(seen.filter((s, i) => i !== 7).every((s) => s.length === 1)).toBe(true);
    } finally {
      for (const stop of stops) stop();
      await engine.close();
    }
  },
);
