import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORK_ORDER } from '../support/fixtures.ts';
import { M, BASE, startHarness, type Harness } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';

/** What a server session carries from one transaction to the next, pooler bookkeeping aside. */
const SESSION_STATE = `select
  (select coalesce(json_agg(name order by name), '[]') from pg_prepared_statements) as prepared,
  (select coalesce(json_agg(name || '=' || setting order by name), '[]') from pg_settings where source = 'session'
     and lower(name) not in ('client_encoding', 'datestyle', 'timezone', 'intervalstyle', 'standard_conforming_strings', 'application_name')) as settings,
  (select coalesce(json_agg(c), '[]') from pg_listening_channels() c) as listening`;

/** Held by any session of the database: session advisory locks outlive their transaction; temp tables are session-scoped. */
const DATABASE_STATE = `select
  (select count(*) from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database()))::int as advisory_locks,
  (select count(*) from pg_class where relpersistence = 't')::int as temp_tables`;

const POOL = 2;

/**
 * The check that fails when a session-level construct comes in: a workload of every area, many
 * requests at once, through PgBouncer in transaction mode with two server sessions and no reset
 * query, so whatever a transaction leaves on its session stays there for the next one to find.
 * A named statement fails the workload (another session has it, or does not) or is found left
 * on a session; a SET, LISTEN, session advisory lock or temporary table is found afterwards.
 */
describe.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())(
  'no session state left behind through PgBouncer (transaction mode, no reset query)',
  () => {
    let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
    let bouncer: PgBouncer;
    let started: Awaited<ReturnType<typeof startHarness>>;
    beforeAll(async () => {
      db = await freshPostgresDatabase();
      bouncer = await startPgBouncer(db.url, { poolSize: POOL, resetQuery: '' });
      started = await startHarness('postgres', { reuse: { databaseUrl: bouncer.url }, env: { PG_PREPARED_STATEMENTS: 'false' } });
    });
    afterAll(async () => {
      await started?.stop(true);
      await bouncer?.stop();
      await db?.drop();
    });

    async function workload(h: Harness): Promise<void> {
      const ok = (r: { status: number; text: string }, status = 200) => expect(r.status, r.text).toBe(status);
      const created = await Promise.all(
        Array.from({ length: 16 }, (_, i) => h.post(`${M}/work_orders`, { ...WORK_ORDER, department_id: 60 + (i % 3) })),
      );
      for (const r of created) ok(r, 201);
      const ids = created.map((r) => r.body.id as number);
      const first = await h.get(`${M}/work_orders?department_id=60&$limit=2&$orderBy=id:desc`);
      ok(first);
      const cursor = first.headers.get('x-cursor');
      const replies = await Promise.all([
        ...ids.map((id) => h.get(`${M}/work_orders/${id}`)),
        ...ids.slice(0, 6).map((id, i) => h.patch(`${M}/work_orders/${id}`, { priority: 1 + (i % 3) })),
        ...[2, 3, 1].map((page) => h.get(`${M}/work_orders?$cursor=${cursor}&$page=${page}`)),
        ...['department_id=61', 'priority:gte=1&$orderBy=priority', 'department_id=60&department_id=62&$limit=3'].map((q) =>
          h.get(`${M}/work_orders?${q}`),
        ),
        ...ids.slice(0, 4).map((id) => h.post(`${M}/work_orders/${id}/notes`, { note: `n${id}` })),
        h.request('GET', `${BASE}/openapi.json`, { token: null }),
      ]);
      for (const r of replies) expect(r.status, r.text).toBeLessThan(300);
      expect(
        (
          await h.request('POST', `${BASE}/authenticate`, {
            token: null,
            body: { api_key: 'mrs_x_y', client_db: 'demo.main', username: 'admin' },
          })
        ).status,
      ).toBe(401);
      ok(await h.get(`${M}/work_orders/${ids[0]}/notes`));
      ok(await h.del(`${M}/work_orders/${ids[1]}`), 204);
    }

    it('serves a workload of every area, several tenants at once, new ones migrating, with nothing left on any server session', async () => {
      const h = started.harness;
      // New tenants migrate (under the migration lock) while the first one serves.
      const [, ...others] = await Promise.all([workload(h), ...['t1.main', 't2.main', 't3.main'].map((clientDb) => h.login({ clientDb }))]);
      await Promise.all(others.map((o) => workload(h.as(o!.token))));

      // Checked first: a client that leaves mid-transaction, as the ones below would, makes PgBouncer close its session.
      const direct = new pg.Client({ connectionString: db.url });
      await direct.connect();
      try {
        expect((await direct.query(DATABASE_STATE)).rows[0]).toEqual({ advisory_locks: 0, temp_tables: 0 });
      } finally {
        await direct.end();
      }

      // Each of the pool's sessions in turn: a transaction holds its session, so the next goes to another.
      const clients = Array.from({ length: POOL }, () => new pg.Client({ connectionString: bouncer.url }));
      const seen: unknown[] = [];
      try {
        for (const c of clients) {
          await c.connect();
          await c.query('begin');
          seen.push((await c.query(`${SESSION_STATE}, pg_backend_pid() as pid`)).rows[0]);
        }
      } finally {
        for (const c of clients) await c.query('rollback').finally(() => c.end());
      }
      expect(new Set(seen.map((s) => (s as { pid: number }).pid)).size).toBe(POOL);
      for (const s of seen) expect(s).toMatchObject({ prepared: [], settings: [], listening: [] });
    });
  },
);
