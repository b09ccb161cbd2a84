/**
 * The floor of the HTTP benchmark's writes (baseline.ts): what the least a server could do for
 * a create and a PATCH that keeps a change feed. The body parsed as JSON, the work order inserted
 * (or its priority updated) and its event appended in one transaction, the written row answered
 * as JSON. No authentication, rate limit, validation, idempotency or versions: the engine's
 * ratio to this floor is what its own work costs, where its ratio to bare Hono (a fixed GET
 * answer) also counts the body, the database and the commit.
 */
import Database from 'better-sqlite3';
import type { Hono } from 'hono';
import pg from 'pg';

const FIELDS = [
  'department_id',
  'work_order_type_id',
  'work_order_type_group_id',
  'priority',
  'status',
  'description',
  'service_request_id',
] as const;
const CREATED = JSON.stringify(FIELDS);

type Body = Partial<Record<(typeof FIELDS)[number], unknown>>;
const valuesOf = (b: Body) => FIELDS.map((f) => (f === 'status' ? (b.status ?? 'open') : (b[f] ?? null)));

/** On a copy of the seeded SQLite file, as the engine opens its own (WAL, synchronous NORMAL). */
export function sqliteWriteFloors(app: Hono, file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const insert = db.prepare(
    `insert into work_orders (${FIELDS.join(', ')}, created, updated, deleted) values (${FIELDS.map(() => '?').join(', ')}, ?, ?, 0) returning *`,
  );
  const update = db.prepare('update work_orders set priority = ?, updated = ? where id = ? and deleted = 0 returning *');
  const event = db.prepare(
    "insert into mrs_events (at, collection, record_id, op, changed, record, username) values (?, 'work_orders', ?, ?, ?, ?, 'admin')",
  );
  const create = db.transaction((b: Body) => {
    const at = new Date().toISOString();
    const row = insert.get(...valuesOf(b), at.slice(0, 10), at) as { id: number };
    event.run(at, row.id, 'create', CREATED, JSON.stringify(row));
    return row;
  });
  const patch = db.transaction((id: number, b: Body) => {
    const at = new Date().toISOString();
    const row = update.get(b.priority ?? null, at, id) as { id: number } | undefined;
    if (row) event.run(at, id, 'update', '["priority"]', JSON.stringify(row));
    return row;
  });
  app.post('/floor-create', async (c) => c.json(create((await c.req.json()) as Body), 201));
  app.patch('/floor-patch/:id', async (c) => {
    const row = patch(Number(c.req.param('id')), (await c.req.json()) as Body);
    return row ? c.json(row) : c.json({ title: 'Not Found' }, 404);
  });
}

/**
 * In schema `floor`, a copy of `schema`'s work orders and event table made here, each write one
 * statement (a data-modifying CTE, as the engine's): the event's record written by PostgreSQL
 * from the row, no seq (the engine numbers its events later).
 */
export async function postgresWriteFloors(app: Hono, url: string, schema: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const from = (t: string) => `"${schema}".${t}`;
  await pool.query(`drop schema if exists floor cascade; create schema floor;
    create table floor.work_orders (like ${from('work_orders')} including all);
    insert into floor.work_orders overriding system value select * from ${from('work_orders')};
    select setval(pg_get_serial_sequence('floor.work_orders', 'id'), (select max(id) from floor.work_orders));
    create table floor.mrs_events (like ${from('mrs_events')} including all);
    analyze floor.work_orders`);
  const withEvent = (write: string, op: string, changed: string) =>
    `with w as (${write}), e as (insert into floor.mrs_events (at, collection, record_id, op, changed, record, username)
      select $1, 'work_orders', w.id, '${op}', '${changed}', row_to_json(w)::text, 'admin' from w) select * from w`;
  const create = withEvent(
    `insert into floor.work_orders (${FIELDS.join(', ')}, created, updated, deleted)
      values (${FIELDS.map((_, i) => `$${i + 2}`).join(', ')}, cast($1 as timestamptz)::date, cast($1 as timestamptz), false) returning *`,
    'create',
    CREATED,
  );
  const patch = withEvent(
    'update floor.work_orders set priority = $2, updated = cast($1 as timestamptz) where id = $3 and not deleted returning *',
    'update',
    '["priority"]',
  );
  app.post('/floor-pg-create', async (c) => {
    const b = (await c.req.json()) as Body;
    const { rows } = await pool.query({ name: 'floor-create', text: create, values: [new Date().toISOString(), ...valuesOf(b)] });
    return c.json(rows[0], 201);
  });
  app.patch('/floor-pg-patch/:id', async (c) => {
    const b = (await c.req.json()) as Body;
    const { rows } = await pool.query({
      name: 'floor-patch',
      text: patch,
      values: [new Date().toISOString(), b.priority ?? null, Number(c.req.param('id'))],
    });
    return rows[0] ? c.json(rows[0]) : c.json({ title: 'Not Found' }, 404);
  });
}
