import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { allowAll, createEngine, defineResource, integer, string, tenantDb, type TenantDbOptions } from '../../engine/index.ts';
import { DATABASES, type DatabaseName } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

/**
 * The engine's state of a database (its cursors' sweep schedule, what its snapshots learned)
 * belongs to the database, not to the TenantDb object a host passes: a host that calls
 * tenantDb(db) on every request (as README's routing example does) pays what a host that keeps
 * one pays.
 */
const parts = defineResource({
  name: 'parts',
  fields: { name: string({ required: true, filterable: true }), bin: integer({ filterable: true, nullable: true }) },
});

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

/** A database of its own with a log of every statement run, and the options tenantDb gets for it. */
async function database(kind: DatabaseName): Promise<{ db: Kysely<any>; options: TenantDbOptions; log: string[] }> {
  const log: string[] = [];
  const onLog = (e: LogEvent) => void (e.level === 'query' && log.push(e.query.sql));
  if (kind === 'sqlite')
    return { db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }), log: onLog }), options: {}, log };
  const fresh = await freshPostgresDatabase();
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 2) }), log: onLog });
  drops.push(async () => {
    await db.destroy();
    await fresh.drop();
  });
  return { db, options: { schema: 'shop' }, log };
}

/** Statements run for 20 searches, through one TenantDb or a new one per request. */
async function twentySearches(kind: DatabaseName, perRequest: boolean): Promise<string[]> {
  const { db, options, log } = await database(kind);
  const once = tenantDb(db, options);
  const engine = createEngine({
    db,
    resources: [parts],
    basePath: '/api',
    closeDb: false,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    resolveCaller: async () => ({ tenant: perRequest ? tenantDb(db, options) : once, can: allowAll() }),
  });
  await engine.migrate();
  for (let i = 0; i < 5; i++) {
    const res = await engine.fetch(
      new Request('http://h/api/maintenance/parts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `p${i}`, bin: i % 2 }),
      }),
    );
    expect(res.status).toBe(201);
  }
  const start = log.length;
  for (let i = 0; i < 20; i++) {
    const res = await engine.fetch(new Request(`http://h/api/maintenance/parts?bin=${i % 2}`));
    expect(res.status).toBe(200);
  }
  // Not the feed's numbering a moment after the creates (PostgreSQL): it runs in the background,
  // among the searches or not, as the machine's load has it.
  const statements = log.slice(start).filter((s) => !/as numbered\s*$/.test(s));
  await engine.close();
  return statements;
}

const sweeps = (statements: readonly string[]) => statements.filter((s) => /^delete from (?:"[^"]+"\.)?"mrs_cursors"/.test(s));

describe('per-tenant engine state', () => {
  it.each(DATABASES)('20 searches through a TenantDb made per request cost what they cost through one [%s]', async (kind) => {
    const one = await twentySearches(kind, false);
    const perRequest = await twentySearches(kind, true);
    // One sweep of expired cursors at the first search, none again within the TTL.
    expect(sweeps(one)).toHaveLength(1);
    expect(sweeps(perRequest)).toHaveLength(1);
    // And every other statement the same.
    expect(perRequest).toEqual(one);
  });

  it('tenantDb gives one state per database and schema, whatever the key', async () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    const a = tenantDb(db);
    expect(tenantDb(db, { key: 'other' }).state).toBe(a.state);
    expect(tenantDb(db).db).toBe(a.db);
    const elsewhere = tenantDb(new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }));
    expect(elsewhere.state).not.toBe(a.state);
    await db.destroy();
  });
});
