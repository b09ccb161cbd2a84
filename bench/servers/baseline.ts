/**
 * Baselines for HTTP benchmarks, run as their own process:
 *   /bare        a Hono route answering a fixed 10-record JSON array;
 *   /floor       the same route doing a prepared SELECT of 10 rows plus a COUNT for the
 *                benchmark's search with better-sqlite3 (the "database floor");
 *   /floor-pg    the same two queries through pg (named prepared statements), when
 *                BASELINE_PG_URL and BASELINE_PG_SCHEMA are set;
 *   /floor-pg-cursor
 *                /floor-pg and a cursor's head row inserted beside its two queries: the least
 *                a server-side cursor adds (a search's bound by design);
 *   /floor-events, /floor-pg-events
 *                the change feed's floor: a prepared SELECT of 100 events after ?after= (demo
 *                tenant's mrs_events), answered as JSON;
 *   /floor/<name>, /floor-pg/<name>
 *                the same for each search of BASELINE_FLOORS (JSON: name -> {where, order}),
 *                its page in its own order (ties by id, empty values last, as the engine).
 *   POST /floor-create, PATCH /floor-patch/:id (and /floor-pg-create, /floor-pg-patch/:id)
 *                the writes' floor (write-floors.ts): the JSON body parsed, the work order
 *                written and its event appended in one transaction, the row answered as JSON; on
 *                BASELINE_WRITE_FILE (a copy of the seeded file: the engine writes the seeded
 *                one) and in schema `floor` (a copy of BASELINE_PG_SCHEMA's tables).
 * Usage: node --import tsx bench/servers/baseline.ts <port> <sqlite-file>
 */
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { postgresWriteFloors, sqliteWriteFloors } from './write-floors.ts';

const port = Number(process.argv[2]);
const file = process.argv[3]!;
const where = process.env.BASELINE_WHERE ?? "department_id = 7 and status = 'open' and deleted = 0";
const db = new Database(file, { readonly: true });
const page = db.prepare(`select * from work_orders where ${where} order by id limit 10`);
const count = db.prepare(`select count(*) as n from work_orders where ${where}`);
const fixed = page.all();

const app = new Hono();
app.get('/bare', (c) => c.json(fixed));
app.get('/floor', (c) => {
  const rows = page.all();
  const total = (count.get() as { n: number }).n;
  return c.json(rows, 200, { 'x-total': String(total) });
});
if (process.env.BASELINE_PG_URL) {
  const pool = new pg.Pool({ connectionString: process.env.BASELINE_PG_URL, max: 10 });
  const table = `"${process.env.BASELINE_PG_SCHEMA ?? 'public'}".work_orders`;
  const pgWhere = where.replace('deleted = 0', 'deleted = false');
  app.get('/floor-pg', async (c) => {
    const [rows, total] = await Promise.all([
      pool.query({ name: 'page', text: `select * from ${table} where ${pgWhere} order by id limit 10` }),
      pool.query({ name: 'count', text: `select count(*) as n from ${table} where ${pgWhere}` }),
    ]);
    return c.json(rows.rows, 200, { 'x-total': String(total.rows[0].n) });
  });
  // A server-side cursor's least cost: the same answer, and its head row written (unlogged, as the engine's).
  await pool.query('create unlogged table if not exists public.floor_cursors (id text primary key, query text, expires_at bigint)');
  app.get('/floor-pg-cursor', async (c) => {
    const id = randomUUID();
    const [rows, total] = await Promise.all([
      pool.query({ name: 'page', text: `select * from ${table} where ${pgWhere} order by id limit 10` }),
      pool.query({ name: 'count', text: `select count(*) as n from ${table} where ${pgWhere}` }),
      pool.query({
        name: 'head',
        text: 'insert into public.floor_cursors values ($1, $2, $3)',
        values: [id, pgWhere, Date.now() + 600_000],
      }),
    ]);
    return c.json(rows.rows, 200, { 'x-total': String(total.rows[0].n), 'x-cursor': id });
  });
}
// The feed's table exists from the engine's migrations on (an older file has none: no route).
const hasEvents = db.prepare(`select 1 from sqlite_master where name = 'mrs_events'`).get() !== undefined;
if (hasEvents) {
  const events = db.prepare(
    'select seq, at, collection, record_id, op, changed, record, username from mrs_events where seq > ? order by seq limit 100',
  );
  app.get('/floor-events', (c) => c.json(events.all(Number(c.req.query('after') ?? 0))));
}
if (process.env.BASELINE_PG_URL) {
  const pool = new pg.Pool({ connectionString: process.env.BASELINE_PG_URL, max: 10 });
  const events = `"${process.env.BASELINE_PG_SCHEMA ?? 'public'}".mrs_events`;
  app.get('/floor-pg-events', async (c) => {
    const { rows } = await pool.query({
      name: 'events',
      text: `select seq, at, collection, record_id, op, changed, record, username from ${events} where seq > $1 order by seq limit 100`,
      values: [Number(c.req.query('after') ?? 0)],
    });
    return c.json(rows);
  });
}
/** The searches of BASELINE_FLOORS: each one's page (in its order) and COUNT. */
const floors = Object.entries(JSON.parse(process.env.BASELINE_FLOORS ?? '{}') as Record<string, { where: string; order?: string }>);
for (const [name, f] of floors) {
  const order = f.order ? `${f.order} is null, ${f.order}, id` : 'id';
  const p = db.prepare(`select * from work_orders where ${f.where} order by ${order} limit 10`);
  const n = db.prepare(`select count(*) as n from work_orders where ${f.where}`);
  app.get(`/floor/${name}`, (c) => c.json(p.all(), 200, { 'x-total': String((n.get() as { n: number }).n) }));
}
if (process.env.BASELINE_PG_URL) {
  const pool = new pg.Pool({ connectionString: process.env.BASELINE_PG_URL, max: 10 });
  const table = `"${process.env.BASELINE_PG_SCHEMA ?? 'public'}".work_orders`;
  for (const [name, f] of floors) {
    const pgWhere = f.where.replace(/deleted = 0/g, 'deleted = false');
    const order = f.order ? `${f.order} is null, ${f.order}, id` : 'id';
    app.get(`/floor-pg/${name}`, async (c) => {
      const [rows, total] = await Promise.all([
        pool.query({ name: `page-${name}`, text: `select * from ${table} where ${pgWhere} order by ${order} limit 10` }),
        pool.query({ name: `count-${name}`, text: `select count(*) as n from ${table} where ${pgWhere}` }),
      ]);
      return c.json(rows.rows, 200, { 'x-total': String(total.rows[0].n) });
    });
  }
}
if (process.env.BASELINE_WRITE_FILE) sqliteWriteFloors(app, process.env.BASELINE_WRITE_FILE);
if (process.env.BASELINE_PG_URL) await postgresWriteFloors(app, process.env.BASELINE_PG_URL, process.env.BASELINE_PG_SCHEMA ?? 'public');
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log('ready'));
