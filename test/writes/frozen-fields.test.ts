/**
 * The worked example of adding a write rule (docs/writes.md): "a work order's department_id
 * cannot change once its status is closed", declared by one field option (`frozenIn`) and kept
 * by one rule file (engine/writes/rules/frozen.ts), on every way a PATCH or PUT runs.
 */
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type DbEngine } from '../../engine/create-engine.ts';
import { defineResource, integer, string } from '../../engine/define.ts';
import { BASE, DATABASES, M } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

const workOrders = defineResource({
  name: 'work_orders',
  fields: {
    department_id: integer({ required: true, frozenIn: { status: ['closed'] } }),
    status: string({ default: 'open', maxLength: 64 }),
    description: string({ nullable: true }),
  },
});

async function open(name: string): Promise<{ engine: DbEngine; close: () => Promise<void> }> {
  const db = name === 'sqlite' ? new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }) : undefined;
  if (db) {
    const engine = createEngine({ db, resources: [workOrders] });
    await engine.migrate();
    return { engine, close: () => engine.close() };
  }
  const fresh = await freshPostgresDatabase();
  const engine = createEngine({
    db: new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 2) }) }),
    resources: [workOrders],
  });
  await engine.migrate();
  return { engine, close: async () => (await engine.close(), await fresh.drop()) };
}

for (const name of DATABASES) {
  describe(`a field frozen while the record is in a state [${name}]`, () => {
    let target: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      target = await open(name);
    });
    afterAll(async () => target?.close());

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await target.engine.fetch(
        new Request(`http://localhost${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, etag: res.headers.get('etag'), body: res.status === 204 ? undefined : await res.json() };
    };
    const FROZEN = [{ field: 'department_id', message: 'may not change while status is closed' }];

    it('keeps department_id while status is closed, by PATCH, PUT (with If-Match or not) and batch', async () => {
      const made = await call('POST', `${M}/work_orders`, { department_id: 1 });
      expect(made.status).toBe(201);
      const url = `${M}/work_orders/${made.body.id}`;
      expect((await call('PATCH', url, { department_id: 2 })).status).toBe(200);
      const closed = await call('PATCH', url, { status: 'closed' });
      expect(closed.status).toBe(200);

      const refused = await call('PATCH', url, { department_id: 3 });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual(FROZEN);
      expect((await call('PATCH', url, { department_id: 3 }, { 'if-match': closed.etag! })).body.errors).toEqual(FROZEN);
      expect((await call('PUT', url, { department_id: 3, status: 'closed' })).body.errors).toEqual(FROZEN);
      // Leaving the state in the same write does not thaw it: the record as it is decides.
      expect((await call('PATCH', url, { department_id: 3, status: 'open' })).status).toBe(422);
      const batch = await call('POST', `${BASE}/batch`, {
        operations: [{ method: 'PATCH', path: `/maintenance/work_orders/${made.body.id}`, body: { department_id: 3 } }],
      });
      expect(batch.status).toBe(422);
      expect((await call('GET', url)).body).toMatchObject({ department_id: 2, status: 'closed' });

      // Its own value may be sent again; other fields change as ever.
      expect((await call('PATCH', url, { department_id: 2, description: 'kept' })).status).toBe(200);
      // Reopened, it may change.
      expect((await call('PATCH', url, { status: 'open' })).status).toBe(200);
      expect((await call('PATCH', url, { department_id: 3 })).body).toMatchObject({ department_id: 3, status: 'open' });
    });

    it('is checked when the definition is', () => {
      expect(() => defineResource({ name: 'a', fields: { n: integer({ nullable: true, frozenIn: { nope: ['x'] } }) } })).toThrow(
        /field n: frozenIn: nope is not a string field/,
      );
    });
  });
}
