import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql, SqliteDialect, type Migration } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/create-engine.ts';
import { defineResource, string } from '../../engine/define.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { createRegistry } from '../../engine/registry.ts';
import { checkMigrationOwners, migrateEngineTables, migrateOwners } from '../../engine/schema/engine-tables.ts';
import { migrateResources } from '../../engine/schema/migrate.ts';
import { eventParents } from '../../engine/schema/migrations/002-event-parents.ts';
import { engineMigrations } from '../../engine/schema/migrations/index.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { loadConfig } from '../../server/config.ts';
import { loadResources } from '../../server/load-resources.ts';
import { SERVER_MIGRATIONS } from '../../server/migrations/index.ts';
import { createService, ensureDemoTenant } from '../../server/service.ts';
import { openTenants } from '../../server/tenants/index.ts';
import { authenticate, ensureUser, makeKey } from '../support/auth.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DATABASES, M, makeHarness, startHarness, type DatabaseName } from '../support/harness.ts';
import { migrateAsPreviousRelease } from '../support/old-migrations/index.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';
import { rawQuery } from '../support/schema-dump.ts';

/**
 * The engine's migrations are one baseline that makes today's tables; a database the release
 * before migrated (its migration chain copied in test/support/old-migrations/) starts on this
 * one with its data as it was, the baseline and the service's migrations recorded as run, and
 * later migrations run on it as on any other.
 */

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

/** A place for a service's data: a fresh directory or PostgreSQL database, dropped after the file. */
async function freshPlace(db: DatabaseName): Promise<{ dataDir?: string; databaseUrl?: string }> {
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-previous-'));
    drops.push(async () => rmSync(dir, { recursive: true, force: true }));
    return { dataDir: dir };
  }
  const fresh = await freshPostgresDatabase();
  drops.push(fresh.drop);
  return { databaseUrl: fresh.url };
}

/** A tenant database of its own (SQLite in memory, or a schema of a fresh PostgreSQL database). */
async function bareTenant(db: DatabaseName, schema = 'tenant'): Promise<TenantDb> {
  if (db === 'sqlite') return tenantDb(new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }));
  const fresh = await freshPostgresDatabase();
  const k = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url) }) });
  drops.push(async () => {
    await k.destroy();
    await fresh.drop();
  });
  await sql`create schema ${sql.id(schema)}`.execute(k);
  return tenantDb(k, { schema, key: schema });
}

const LIMITS = { RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000000' };
const names = async (place: object, table: string) => (await rawQuery(place, `select name from ${table} order by name`)).map((r) => r.name);

describe.each(DATABASES)('a database the release before the baseline migrated [%s]', (db) => {
  it('starts with its records, cursors, feed, users and keys as they were, and later migrations run on it', async () => {
    const place = await freshPlace(db);
    const config = loadConfig({ DATA_DIR: place.dataDir, DATABASE_URL: place.databaseUrl, ...LIMITS });
    const registry = createRegistry(await loadResources());
    // The tenant made as the release before made it: resource tables, then its migration chain.
    const before = openTenants(config, async (t) => {
      await migrateResources(t, registry);
      await migrateAsPreviousRelease(t, db, { service: true });
      // Today's code writes events' parent columns, which the release before lacked: added here
      // for the writes below, the later migration (002-event-parents) then finds them and adds nothing.
      await eventParents(t).up(t.db);
    });
    await before.create('demo.main');
    await before.close();

    // Data written on those tables (the layout is the same: nothing migrates them).
    const old = await createService(config, { migrateOnOpen: false, onUnexpectedError: () => {} });
    await ensureDemoTenant(old.tenants);
    // That release had no refresh tokens (no table for them yet): its token is signed as its /authenticate signed one.
    await ensureUser(old, 'demo.main', 'admin');
    const { key, keyId } = await makeKey(old, 'demo.main', 'admin');
    const token = await old.auth.tokens.sign({ sub: 'admin', client_db: 'demo.main', key_id: keyId });
    const h1 = makeHarness(db, old, token);
    const made: number[] = [];
    for (const description of ['pump', 'valve', 'belt'])
      made.push((await h1.post(`${M}/work_orders`, { ...WORK_ORDER, description })).body.id);
    expect((await h1.patch(`${M}/work_orders/${made[0]}`, { description: 'pump, checked' })).status).toBe(200);
    expect((await h1.del(`${M}/work_orders/${made[2]}`)).status).toBe(204);
    const list = await h1.get(`${M}/work_orders?$limit=1&$page=2`);
    const cursor = list.headers.get('x-cursor')!;
    const feed = (await h1.get(`${BASE_EVENTS}?$after=0`)).body as { seq: number; op: string; id: number }[];
    expect(feed.map((e: { op: string }) => e.op)).toEqual(['create', 'create', 'create', 'update', 'delete']);
    await old.close();
    if (db === 'postgres')
      // A write of the release before whose event was not numbered yet when it stopped.
      await rawQuery(
        place,
        `insert into mrs_events (seq, at, collection, record_id, op, changed, record, username)
         values (null, '2026-11-28T00:00:00.000Z', 'work_orders', ${made[1]}, 'update', '[]', '{"id":${made[1]}}', 'admin')`,
      );

    const started = await startHarness(db, { reuse: place });
    try {
      const h = started.harness;
      expect(await names(place, 'mrs_migration_engine')).toEqual(['001-baseline', '002-event-parents']);
      expect(await names(place, 'mrs_migration_service')).toEqual(['002-auth', '007-user-disabled', '011-webhooks', '016-refresh-tokens']);
      // The release before's own record is left as it was (that release could still start on it).
      expect(await names(place, 'mrs_migration')).toHaveLength(15);

      expect((await h.get(`${M}/work_orders?$cursor=${cursor}&$page=2`)).body).toEqual(list.body);
      expect((await h.get(`${M}/work_orders/${made[0]}`)).body.description).toBe('pump, checked');
      expect((await h.get(`${M}/work_orders/${made[2]}`)).status).toBe(404);
      expect(await authenticate(h.service, 'demo.main', 'admin', key)).toEqual(expect.any(String));

      const next = (await h.post(`${M}/work_orders`, { ...WORK_ORDER, description: 'new' })).body.id;
      const after = (await h.get(`${BASE_EVENTS}?$after=0`)).body as { seq: number; op: string; id: number }[];
      const unnumbered = db === 'postgres' ? [[6, 'update', made[1]]] : [];
      expect(after.map((e) => [e.seq, e.op, e.id])).toEqual([
        ...feed.map((e) => [e.seq, e.op, e.id]),
        ...unnumbered,
        [6 + unnumbered.length, 'create', next],
      ]);

      // Later migrations of either owner run there as anywhere.
      const tenant = (await h.service.tenants.get('demo.main'))!;
      const table = (name: string): Migration => ({ up: (k) => k.schema.createTable(name).addColumn('a', 'text').execute() });
      await migrateOwners(tenant, {
        engine: { ...engineMigrations(tenant), '098-later': table('mrs_later_engine') },
        service: { ...SERVER_MIGRATIONS, '099-later': table('mrs_later_service') },
      });
      expect(await names(place, 'mrs_migration_engine')).toEqual(['001-baseline', '002-event-parents', '098-later']);
      expect(await names(place, 'mrs_migration_service')).toEqual([
        '002-auth',
        '007-user-disabled',
        '011-webhooks',
        '016-refresh-tokens',
        '099-later',
      ]);
      expect(await rawQuery(place, 'select count(*) as n from mrs_later_engine')).toEqual([{ n: db === 'postgres' ? '0' : 0 }]);
      expect(await rawQuery(place, 'select count(*) as n from mrs_later_service')).toEqual([{ n: db === 'postgres' ? '0' : 0 }]);
    } finally {
      await started.stop(true);
    }
  });

  it('refuses a database an older release left part way, naming what it lacks', async () => {
    const t = await bareTenant(db);
    await migrateAsPreviousRelease(t, db, { before: '015' });
    await expect(migrateEngineTables(t)).rejects.toThrow(
      /migration refused in .*: its engine tables are older than the release before the baseline \(they lack 015-event-finding\)/,
    );
  });

  it('has the same tables from the engine migrations as from the chain before the baseline and the later ones', async () => {
    const fresh = await bareTenant(db, 'fresh');
    await migrateEngineTables(fresh);
    const chained = await bareTenant(db, 'chained');
    await migrateAsPreviousRelease(chained, db);
    await migrateEngineTables(chained);
    const layout = db === 'sqlite' ? sqliteLayout : postgresLayout;
    expect(await layout(fresh)).toEqual(await layout(chained));
    expect(await fresh.db.selectFrom('mrs_meta').selectAll().execute()).toEqual(
      await chained.db.selectFrom('mrs_meta').selectAll().execute(),
    );
  });
});

const BASE_EVENTS = '/v4_server/external/v1/events';

/** The engine's tables (not the migration records) as SQLite has them: columns and indexes. */
async function sqliteLayout(t: TenantDb) {
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'mrs_migration%'
    and name <> 'sqlite_sequence' order by name`.execute(t.db);
  const out: Record<string, unknown> = {};
  for (const { name } of tables.rows) {
    out[name] = (await sql`select * from pragma_table_xinfo(${name})`.execute(t.db)).rows;
    out[`${name} indexes`] = (
      await sql`select name, sql from sqlite_master where type = 'index' and tbl_name = ${name} order by name`.execute(t.db)
    ).rows;
  }
  return out;
}

/** The engine's tables (not the migration records) as PostgreSQL has them: columns, indexes, persistence and storage options. */
async function postgresLayout(t: TenantDb) {
  const schema = t.schema!;
  const columns = await sql`select table_name, ordinal_position, column_name, data_type, is_nullable,
      replace(column_default, ${schema} || '.', '') as column_default
    from information_schema.columns where table_schema = ${schema} and table_name not like 'mrs_migration%'
    order by table_name, ordinal_position`.execute(t.db);
  const indexes = await sql`select tablename, indexname, replace(indexdef, ${schema} || '.', '') as indexdef from pg_indexes
    where schemaname = ${schema} and tablename not like 'mrs_migration%' order by indexname`.execute(t.db);
  const relations = await sql`select relname, relkind, relpersistence, reloptions from pg_class c
    join pg_namespace n on n.oid = c.relnamespace where nspname = ${schema} and relname not like 'mrs_migration%' order by relname`.execute(
    t.db,
  );
  const constraints = await sql`select conname, pg_get_constraintdef(c.oid) as def from pg_constraint c
    join pg_namespace n on n.oid = c.connamespace where nspname = ${schema} and conname not like 'mrs_migration%' order by conname`.execute(
    t.db,
  );
  return { columns: columns.rows, indexes: indexes.rows, relations: relations.rows, constraints: constraints.rows };
}

describe('migration owners', () => {
  it.each([
    [{ engine: {} }, /"engine" is the engine's own owner/],
    [{ Service: {} }, /the owner "Service" must be lowercase letters, digits and _/],
    [{ service: { '001-baseline': {} as Migration } }, /"001-baseline" is both engine's and service's/],
    [{ service: { '003-cursors': {} as Migration } }, /"003-cursors" is both engine's and service's/],
    [{ service: { '002-auth': {} as Migration }, team: { '002-auth': {} as Migration } }, /"002-auth" is both service's and team's/],
  ])('refuses %j when the engine is made', (owners, message) => {
    expect(() => checkMigrationOwners(owners)).toThrow(message);
    const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true }) } });
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    expect(() => createEngine({ db, resources: [tasks], migrations: owners })).toThrow(message);
  });

  it("takes the service's migrations and a team's of their own", () => {
    expect(() => checkMigrationOwners({ service: SERVER_MIGRATIONS, team_a: { '001-first': {} as Migration } })).not.toThrow();
  });
});
