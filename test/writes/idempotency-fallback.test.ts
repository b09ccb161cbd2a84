import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { EngineError } from '../../engine/errors.ts';
import { withIdempotencyKey, type KeptAnswer } from '../../engine/idempotency/index.ts';
import { keep } from '../../engine/idempotency/store.ts';
import { migrateEngineTables } from '../../engine/schema/engine-tables.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { DATABASES, type DatabaseName } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

/**
 * A keyed write that claims its key in its own statement falls back to the transaction only when
 * the key was not free; a refusal of the write is kept as the transaction keeps it; any other
 * failure is the request's error, never a silent second try.
 */

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

async function tenant(db: DatabaseName): Promise<TenantDb> {
  let t: TenantDb;
  if (db === 'sqlite') t = tenantDb(new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }));
  else {
    const fresh = await freshPostgresDatabase();
    const k = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url) }) });
    drops.push(async () => {
      await k.destroy();
      await fresh.drop();
    });
    await sql`create schema t`.execute(k);
    t = tenantDb(k, { schema: 't', key: 't' });
  }
  await migrateEngineTables(t);
  return t;
}

const SETTINGS = { ttlMs: 60_000, now: () => Date.now() };
const CREATED: KeptAnswer = { status: 201, body: '{"id":1}', location: '/x/1', etag: '"1"' };

describe.each(DATABASES)('the one-statement claim of an Idempotency-Key [%s]', (db) => {
  it('rethrows a failure when the key is free, and runs nothing else', async () => {
    const t = await tenant(db);
    const req = { owner: 'u', key: 'k-failure', fingerprint: 'f' };
    let ran = 0;
    const failure = new Error('connection lost');
    await expect(
      withIdempotencyKey(
        t,
        SETTINGS,
        req,
        async () => (ran++, CREATED),
        async () => Promise.reject(failure),
      ),
    ).rejects.toBe(failure);
    expect(ran).toBe(0);
  });

  it('answers for the key through the transaction when another request kept its answer meanwhile', async () => {
    const t = await tenant(db);
    const req = { owner: 'u', key: 'k-taken', fingerprint: 'f' };
    let ran = 0;
    const outcome = await withIdempotencyKey(
      t,
      SETTINGS,
      req,
      async () => (ran++, CREATED),
      // Another request's answer committed first; this statement's insert of the key is refused.
      async () => {
        await keep(t.db, req, CREATED, Date.now() + 60_000);
        throw new Error('duplicate key value violates unique constraint "mrs_idempotency_pk"');
      },
    );
    expect(outcome).toEqual({ answer: expect.objectContaining({ status: 201, body: '{"id":1}' }), replayed: true });
    expect(ran).toBe(0);
  });

  it('leaves a refusal of the write to the transaction, which keeps it and replays it', async () => {
    const t = await tenant(db);
    const req = { owner: 'u', key: 'k-refused', fingerprint: 'f' };
    const refusal = new EngineError('invalid-body', 'The body is not a valid record: see errors.', [{ field: 'priority', message: 'x' }]);
    let ran = 0;
    const refuse = async (): Promise<KeptAnswer> => {
      ran++;
      throw refusal;
    };
    await expect(withIdempotencyKey(t, SETTINGS, req, refuse, refuse)).rejects.toBe(refusal);
    const again = await withIdempotencyKey(t, SETTINGS, req, refuse, refuse);
    expect([again.replayed, again.answer.status]).toEqual([true, 422]);
    expect(ran).toBe(3); // the statement twice, the transaction once
  });

  it('rethrows an error of the server (5xx), not tried a second time', async () => {
    const t = await tenant(db);
    const req = { owner: 'u', key: 'k-unavailable', fingerprint: 'f' };
    const unavailable = new EngineError('unavailable', 'try again');
    let ran = 0;
    await expect(
      withIdempotencyKey(
        t,
        SETTINGS,
        req,
        async () => (ran++, CREATED),
        async () => Promise.reject(unavailable),
      ),
    ).rejects.toBe(unavailable);
    expect(ran).toBe(0);
  });
});
