import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransient } from '../../engine/transient.ts';
import { loadConfig } from '../../server/config.ts';
import { namedStatementPool } from '../../server/tenants/named-statements.ts';
import { createLogger } from '../../server/logging.ts';
import { createService, ensureDemoTenant, type Service } from '../../server/service.ts';
import { login } from '../support/auth.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { BASE, M, makeHarness, type Harness } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';

type LogLine = { level: number; msg: string; setting?: string };

/** The service's log lines, parsed, into `into`. */
const sinkInto = (into: LogLine[]) =>
  new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) into.push(JSON.parse(line));
      done();
    },
  });

/**
 * The deployment trap: PG_PREPARED_STATEMENTS left on (the default) behind PgBouncer in
 * transaction mode. Named statements land on server sessions other transactions then get; the
 * first error turns naming off for the pool, says why once, and the request runs again: none fails.
 */
describe.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())('named prepared statements behind PgBouncer (transaction mode)', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let bouncer: PgBouncer;
  let service: Service;
  let h: Harness;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    bouncer = await startPgBouncer(db.url, { poolSize: 2 });
    const config = loadConfig({ DATABASE_URL: bouncer.url, RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000000' });
    expect(config.pgPreparedStatements).toBe(true);
    service = await createService(config, { logger: createLogger('warn', sinkInto(lines)), onUnexpectedError: () => {} });
    await ensureDemoTenant(service.tenants);
    h = makeHarness('postgres', service, (await login(service)).token);
  });
  afterAll(async () => {
    await service?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  it('switches the pool to unnamed statements at the first error, warns once, and no request fails', async () => {
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => h.post(`${M}/work_orders`, { ...WORK_ORDER, priority: i % 4 })));
    for (const r of created) expect(r.status, r.text).toBe(201);
    const ids = created.map((r) => r.body.id as number);
    for (let round = 0; round < 3; round++) {
      const first = await h.get(`${M}/work_orders?priority:gte=1&$limit=3&$orderBy=priority`);
      expect(first.status, first.text).toBe(200);
      const cursor = first.headers.get('x-cursor');
      const replies = await Promise.all([
        ...ids.map((id) => h.get(`${M}/work_orders/${id}`)),
        ...ids.slice(0, 8).map((id) => h.patch(`${M}/work_orders/${id}`, { description: `round ${round}` })),
        ...ids.slice(0, 4).map((id) => h.post(`${M}/work_orders/${id}/notes`, { note: `n${round}` })),
        ...[2, 3, 1].map((page) => h.get(`${M}/work_orders?$cursor=${cursor}&$page=${page}`)),
        ...ids.slice(8, 12).map((id, i) =>
          h.request('POST', `${M}/work_orders`, {
            body: { ...WORK_ORDER, description: `keyed ${id}` },
            headers: { 'idempotency-key': `k-${round}-${i}` },
          }),
        ),
      ]);
      for (const r of replies) expect(r.status, r.text).toBeLessThan(300);
    }
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings, JSON.stringify(lines)).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ setting: 'PG_PREPARED_STATEMENTS' });
    expect(warnings[0]!.msg).toMatch(/named prepared statements off: .*transaction pooler \(PgBouncer pool_mode = transaction\)/);
  });

  it('inside a transaction the error ends it: the statement fails as transient (its request runs again), and the pool runs unnamed after', async () => {
    // One server session behind the pooler, two client connections: what one names the other finds there.
    const single = await startPgBouncer(db.url, { poolSize: 1 });
    const raw = new pg.Pool({ connectionString: single.url, max: 2 });
    const told: string[] = [];
    const pool = namedStatementPool(raw, { onUnnamed: (why) => told.push(why) });
    try {
      const [a, b] = [await pool.connect(), await pool.connect()];
      const text = 'select $1::int as v';
      await a.query(text, [1]);
      await a.query(text, [2]); // seen twice: now a named statement, on the one server session
      await b.query('begin', []);
      const failed = await b.query(text, [3]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isTransient(failed), String(failed)).toBe(true);
      await b.query('rollback', []);
      expect((await b.query(text, [4])).rows).toEqual([{ v: 4 }]);
      expect((await a.query(text, [5])).rows).toEqual([{ v: 5 }]);
      expect(told).toHaveLength(1);
      a.release();
      b.release();
      // Outside a transaction the same error is retried unnamed at once.
      const fresh = namedStatementPool(raw, { onUnnamed: (why) => told.push(why) });
      const [c, d] = [await fresh.connect(), await fresh.connect()];
      await c.query('select $1::int + 1 as v', [1]);
      await c.query('select $1::int + 1 as v', [2]);
      expect((await d.query('select $1::int + 1 as v', [3])).rows).toEqual([{ v: 4 }]);
      expect(told).toHaveLength(2);
      c.release();
      d.release();
    } finally {
      await raw.end();
      await single.stop();
    }
  });

  it('a batch whose transaction meets the first error answers as if nothing happened: run again once, its writes kept once, one warning', async () => {
    // One server session: a neighbour on it sees the names the service prepared there and can drop some.
    const single = await startPgBouncer(db.url, { poolSize: 1 });
    const said: LogLine[] = [];
    const config = loadConfig({ DATABASE_URL: single.url, RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000000' });
    const own = await createService(config, { logger: createLogger('warn', sinkInto(said)), onUnexpectedError: () => {} });
    const neighbour = new pg.Client({ connectionString: single.url });
    // Only the switch's warning counts: a loaded machine may log others (a slow request).
    const switches = () => said.filter((l) => l.level === 40 && l.setting === 'PG_PREPARED_STATEMENTS');
    try {
      const hs = makeHarness('postgres', own, (await login(own)).token);
      const batch = (department_id: number) =>
        hs.request('POST', `${BASE}/batch`, {
          body: {
            operations: [
              { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, department_id } },
              { method: 'POST', path: '/maintenance/work_orders', body: { ...WORK_ORDER, department_id } },
            ],
          },
        });
      // Seen twice, the batch's statements are named, prepared on the one server session.
      for (const department of [901, 902, 903]) expect((await batch(department)).status).toBe(200);
      expect(switches(), JSON.stringify(said)).toHaveLength(0);
      // As if the next transaction got another server session: only the writes' names are gone, so
      // the first statement to miss its name is one inside the batch's transaction.
      await neighbour.connect();
      const { rows } = await neighbour.query(
        `select name from pg_prepared_statements where name like 'mrs_%' and statement ~* '^\\s*(with|insert)'`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const { name } of rows) await neighbour.query(`deallocate "${name}"`);
      const r = await batch(904);
      expect(r.status, r.text).toBe(200);
      const kept = await hs.get(`${M}/work_orders?department_id=904`);
      expect(kept.headers.get('x-total')).toBe('2'); // the first run rolled back, the second kept
      expect(switches(), JSON.stringify(said)).toHaveLength(1);
      expect((await batch(905)).status).toBe(200);
      expect(switches()).toHaveLength(1);
    } finally {
      await neighbour.end().catch(() => {});
      await own.close();
      await single.stop();
    }
  });
});
