import { createHash } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { releaseTenantDb, tenantDb } from '../../engine/tenant-db.ts';
import { PoolerSafePostgresDialect } from './migration-lock.ts';
import { namedStatementPool, type OnUnnamed } from './named-statements.ts';
import { settled } from './settled.ts';
import { openOnce } from './open-once.ts';
import { TenantExistsError, type TenantStore } from './types.ts';
import { webhookWorkOf, webhookWorkSql, type WebhookWork } from '../webhooks/store.ts';
import { databaseOf } from '../../engine/dialects/index.ts';

const INT8 = 20;
const DATE = 1082;
const TIMESTAMPTZ = 1184;

/** API-shaped values straight from the driver: int8 as numbers, dates as YYYY-MM-DD strings. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (v: string) => Number(v);
    if (oid === DATE) return (v: string) => v;
    if (oid === TIMESTAMPTZ) return (v: string) => new Date(pg.types.getTypeParser(TIMESTAMPTZ)(v) as Date).toISOString();
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  /** Pool size (default 10). */
  readonly max?: number;
  /** Repeated statements as named prepared statements (default true); false behind a transaction pooler. */
  readonly preparedStatements?: boolean;
  /** Told once, with the reason, when the pool finds itself behind a transaction pooler and stops naming statements. */
  readonly onUnnamed?: OnUnnamed;
  /** A tenant unused this long (ms) lets go of its state (0: never). */
  readonly idleMs?: number;
  /** Over this many tenants open, the least recently used idle ones let go of their state (0: no cap). */
  readonly maxOpen?: number;
}

/**
 * A pool and Kysely on it that keep no session state between transactions, so that they also
 * work through a transaction pooler: migration locks are transaction-scoped, and named
 * statements (session state) are sent only when `preparedStatements` allows.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): { pool: pg.Pool; db: Kysely<any> } {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types: types as pg.CustomTypesConfig });
  pool.on('error', () => {}); // idle client errors surface on the next query instead of crashing
  const queries = options.preparedStatements === false ? pool : namedStatementPool(pool, { onUnnamed: options.onUnnamed });
  return { pool, db: new Kysely<any>({ dialect: new PoolerSafePostgresDialect({ pool: queries }) }) };
}

const SERVER_SCHEMA = 'mrs_server';
/** Schemas one statement asks for their webhooks' work, at most: planning a UNION ALL grows with the square of its branches. */
const WORK_CHUNK = 20;

/**
 * `if not exists` can still fail when two processes create the same object at once; the loser finds
 * it made: a unique violation in the catalog, a schema or table that exists, or the table's row type
 * that exists (duplicate_object).
 */
const RACE_CODES = new Set(['23505', '42P06', '42P07', '42710']);
const ignoreRace = (e: unknown) => {
  if (!RACE_CODES.has(String((e as { code?: unknown }).code))) throw e;
};

/** The server schema on a pool of one, for the servers' roster (server/roster.ts). */
export async function postgresServerDb(url: string): Promise<{ db: Kysely<any>; schema: string }> {
  const { db } = openPostgres(url, { max: 1, preparedStatements: false });
  await db.schema.createSchema(SERVER_SCHEMA).ifNotExists().execute().catch(ignoreRace);
  return { db, schema: SERVER_SCHEMA };
}

/** The schema that holds a tenant: the name itself when it fits PostgreSQL's 63 bytes. */
export function schemaOf(clientDb: string): string {
  return clientDb.length <= 63 ? clientDb : 'mrs_' + createHash('sha256').update(clientDb).digest('hex').slice(0, 40);
}

/** TENANT_OPEN_MAX's default: a schema open holds only its compiled statements (BENCHMARKS.md, "Many tenants"). */
export const POSTGRES_OPEN_MAX = 64;

/** One schema per tenant in one database; every tenant shares the process's pool. */
export function postgresTenants(url: string, migrate: (t: TenantDb) => Promise<void>, options: PostgresOptions = {}): TenantStore {
  const { db, pool } = openPostgres(url, options);
  const { events } = databaseOf(db);
  const { open, load, acquire, stop } = openOnce(
    async (clientDb) => {
      const schema = schemaOf(clientDb);
      await db.schema.createSchema(schema).ifNotExists().execute().catch(ignoreRace); // processes starting together
      const t = tenantDb(db, { key: clientDb, schema });
      await migrate(t);
      return t;
    },
    { idleMs: options.idleMs, maxOpen: options.maxOpen, release: async (clientDb) => releaseTenantDb(db, schemaOf(clientDb)) },
  );
  const made = new Set<string>();
  /** A key-value table of the server schema, made on first use (processes starting together race to make it). */
  const serverTable = async (table: string, key: string, value: string) => {
    if (!made.has(table)) {
      await db.schema.createSchema(SERVER_SCHEMA).ifNotExists().execute().catch(ignoreRace);
      await db.schema
        .withSchema(SERVER_SCHEMA)
        .createTable(table)
        .ifNotExists()
        .addColumn(key, 'text', (c) => c.primaryKey())
        .addColumn(value, 'text', (c) => c.notNull())
        .execute()
        .catch(ignoreRace);
      made.add(table);
    }
    return db.withSchema(SERVER_SCHEMA);
  };
  const exists = async (schema: string) =>
    (await sql`select 1 from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)).rows.length > 0;
  /** A tenant's tables are made in one transaction, so a creation cut short leaves at most its schema, empty. */
  const whole = async (schema: string) =>
    (
      await sql`select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relname = 'mrs_meta'`.execute(db)
    ).rows.length > 0;
  const known = async (clientDb: string) => open.has(clientDb) || (await exists(schemaOf(clientDb)));
  return {
    get: async (clientDb) => ((await known(clientDb)) ? load(clientDb) : undefined),
    lease: async (clientDb) => ((await known(clientDb)) ? acquire(clientDb) : undefined),
    async create(clientDb) {
      if (open.has(clientDb) || (await whole(schemaOf(clientDb)))) throw new TenantExistsError(clientDb);
      return load(clientDb);
    },
    async list() {
      // pg_catalog, not information_schema, whose views check every relation of the database.
      const rows = await sql<{ schema_name: string }>`select n.nspname as schema_name from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace where c.relname = 'mrs_meta' and c.relkind in ('r', 'p') order by 1`.execute(
        db,
      );
      return rows.rows.map((r) => r.schema_name);
    },
    /** Rows of `mrs_server.settings`: a schema no tenant can have (tenant schemas hold a dot or are `mrs_` + 40 hex). */
    async serverValue(name, make) {
      const settings = await serverTable('settings', 'key', 'value');
      await settings
        .insertInto('settings')
        .values({ key: name, value: make() })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const row = await settings.selectFrom('settings').select('value').where('key', '=', name).executeTakeFirstOrThrow();
      return row.value as string;
    },
    async fingerprints() {
      const rows = await (
        await serverTable('tenant_fingerprints', 'client_db', 'fingerprint')
      )
        .selectFrom('tenant_fingerprints')
        .select(['client_db', 'fingerprint'])
        .execute();
      return new Map(rows.map((r) => [r.client_db as string, r.fingerprint as string]));
    },
    async recordFingerprint(clientDb, fingerprint) {
      await (
        await serverTable('tenant_fingerprints', 'client_db', 'fingerprint')
      )
        .insertInto('tenant_fingerprints')
        .values({ client_db: clientDb, fingerprint })
        .onConflict((oc) => oc.column('client_db').doUpdateSet({ fingerprint }))
        .execute();
    },
    webhooks: {
      async noted() {
        const rows = await (
          await serverTable('tenant_webhooks', 'client_db', 'active')
        )
          .selectFrom('tenant_webhooks')
          .select('client_db')
          .execute();
        const names = rows.map((r) => r.client_db as string);
        return names.includes('') ? new Set(names) : undefined;
      },
      async note(clientDb, active) {
        const table = await serverTable('tenant_webhooks', 'client_db', 'active');
        if (!active) return void (await table.deleteFrom('tenant_webhooks').where('client_db', '=', clientDb).execute());
        await table
          .insertInto('tenant_webhooks')
          .values({ client_db: clientDb, active: 'yes' })
          .onConflict((oc) => oc.column('client_db').doNothing())
          .execute();
      },
      async work(names, now) {
        const found = new Map<string, WebhookWork>();
        const ask = async (some: readonly string[]) => {
          const parts = some.map(
            (name, n) => sql`select ${sql.lit(n)} as n, w.* from (${webhookWorkSql({ schema: schemaOf(name), events }, now)}) w`,
          );
          const { rows } = await sql<{ n: number; active: unknown; due: unknown }>`${sql.join(parts, sql` union all `)}`.execute(db);
          for (const row of rows) found.set(some[Number(row.n)]!, webhookWorkOf(row));
        };
        for (let i = 0; i < names.length; i += WORK_CHUNK) {
          const chunk = names.slice(i, i + WORK_CHUNK);
          // A schema without the tables (dropped meanwhile, never migrated) fails the statement: then one by one.
          await ask(chunk).catch(() => Promise.all(chunk.map((name) => ask([name]).catch(() => {}))));
        }
        return found;
      },
    },
    opened: async () => settled(open.values()),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ping: async () => void (await sql`select 1`.execute(db)),
    async close() {
      stop();
      open.clear();
      await db.destroy();
    },
  };
}
