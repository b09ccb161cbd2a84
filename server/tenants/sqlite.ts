import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { BACKSTOP_PAGES, startCheckpointer, type Checkpointer } from './checkpointer.ts';
import { GroupCommitKysely, GroupCommitSqliteDialect } from '../../adapters/sqlite/group-commit.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { openOnce } from './open-once.ts';
import { settled } from './settled.ts';
import { TenantExistsError, type TenantStore } from './types.ts';
import { webhookWorkOf, webhookWorkSql, type WebhookWork } from '../webhooks/store.ts';
import { sqliteEvents } from '../../engine/dialects/sqlite/event-log.ts';

/** A tenant file's tables as the webhooks' work query names them: no schema. */
const SQLITE_TENANT = { schema: undefined, events: sqliteEvents };

const SUFFIX = '.sqlite';
/** The server's own SQLite file in the data directory (not a tenant: no `.sqlite` suffix). */
export const CATALOG = 'mrs-catalog.db';

/**
 * A tenant file in WAL mode, through Kysely with group commit (group-commit.ts).
 * `walAutocheckpoint` is SQLite's own threshold (pages of log); servers raise it to a backstop
 * and checkpoint from a worker (checkpointer.ts).
 */
export function openSqlite(file: string, options: { walAutocheckpoint?: number } = {}): Kysely<any> {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000'); // for the statements here; the driver waits its own way
  // Temporary tables in memory, not in a file: every INSERT ... RETURNING (each create and
  // update) keeps its returned row in one, which a temporary file made far dearer
  // (BENCHMARKS.md). What else goes there is small here (a sort of a search's ids, one at a time
  // on the connection).
  database.pragma('temp_store = MEMORY');
  if (options.walAutocheckpoint !== undefined) database.pragma(`wal_autocheckpoint = ${Math.trunc(options.walAutocheckpoint)}`);
  // SQLite's advice for long-lived connections: gather statistics where they are missing or
  // stale, from a sample (a full ANALYZE of a busy server's cursor table took seconds, holding up
  // the tenant's first request).
  database.pragma('analysis_limit = 1000');
  try {
    database.pragma('optimize = 0x10002');
  } catch (e) {
    // It writes statistics: a file another process is migrating answers busy, and the next opening gathers them.
    if (!String((e as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw e;
  }
  database.pragma('analysis_limit = 0');
  return new GroupCommitKysely(new GroupCommitSqliteDialect(database));
}

/** The catalog file on a connection of its own, for the servers' roster (server/roster.ts). */
export function sqliteCatalogDb(dataDir: string): Kysely<any> {
  mkdirSync(dataDir, { recursive: true });
  const database = new Database(join(dataDir, CATALOG));
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
}

/**
 * How long a tenant file not written since is taken at its last answer to the webhooks' work
 * query: a backoff (whole seconds) that ends meanwhile is seen at most this late.
 */
const RECHECK_MS = 1000;
/** The same for a file whose webhooks had nothing behind: only a write can give them work, and the stamp shows writes. */
const QUIET_RECHECK_MS = 30_000;

/** A tenant file's size and time of change, with its log's: any commit changes it. */
function stampOf(file: string): string {
  const of = (f: string) => {
    const st = statSync(f, { throwIfNoEntry: false });
    return st ? `${st.mtimeMs}:${st.size}` : '-';
  };
  return `${of(file)}/${of(`${file}-wal`)}`;
}

/**
 * TENANT_OPEN_MAX's default: the memory an open tenant file holds stays with the process once
 * freed (glibc keeps it), and opening it again costs its next request little (BENCHMARKS.md, "Many tenants").
 */
export const SQLITE_OPEN_MAX = 16;

/** One SQLite file per tenant under the data directory. */
export function sqliteTenants(
  dataDir: string,
  migrate: (t: TenantDb) => Promise<void>,
  options: { idleMs?: number; maxOpen?: number } = {},
): TenantStore {
  mkdirSync(dataDir, { recursive: true });
  const fileOf = (clientDb: string) => join(dataDir, clientDb + SUFFIX);
  let checkpointer: Checkpointer | undefined;
  let catalogDb: Database.Database | undefined;
  /** Compiles the webhooks' work query (runs nothing). */
  let compiler: Kysely<any> | undefined;
  /** Per tenant file, what its webhooks' work was when last asked, and the file as it was then. */
  const asked = new Map<string, { stamp: string; work: WebhookWork; behind: boolean; at: number }>();
  /** The server's own file beside the tenants' (not a tenant: no `.sqlite` suffix), shared by every process on the directory. */
  const catalog = () => {
    if (catalogDb) return catalogDb;
    const d = new Database(join(dataDir, CATALOG));
    d.pragma('journal_mode = WAL');
    d.pragma('busy_timeout = 5000');
    d.exec('create table if not exists tenant_fingerprints (client_db text primary key, fingerprint text not null)');
    d.exec('create table if not exists tenant_webhooks (client_db text primary key)');
    return (catalogDb = d);
  };
  const { open, load, acquire, stop } = openOnce(
    async (clientDb) => {
      const file = fileOf(clientDb);
      const t = tenantDb(openSqlite(file, { walAutocheckpoint: BACKSTOP_PAGES }), { key: clientDb });
      try {
        await migrate(t);
      } catch (e) {
        // A refused or failed migration: let go of the file (its write lock included) for the next try.
        await t.db.destroy();
        throw e;
      }
      (checkpointer ??= startCheckpointer()).watch(file);
      return t;
    },
    {
      idleMs: options.idleMs,
      maxOpen: options.maxOpen,
      async release(clientDb, t) {
        checkpointer?.forget(fileOf(clientDb));
        await t.db.destroy();
      },
    },
  );
  const known = (clientDb: string) => open.has(clientDb) || existsSync(fileOf(clientDb));
  return {
    get: async (clientDb) => (known(clientDb) ? load(clientDb) : undefined),
    lease: async (clientDb) => (known(clientDb) ? acquire(clientDb) : undefined),
    async create(clientDb) {
      if (known(clientDb)) throw new TenantExistsError(clientDb);
      return load(clientDb);
    },
    list: async () =>
      readdirSync(dataDir)
        .filter((f) => f.endsWith(SUFFIX))
        .map((f) => f.slice(0, -SUFFIX.length)),
    /**
     * `DATA_DIR/<name>`, readable by the owner only. Written whole beside it, then linked: the
     * first link wins when processes race, and no process reads a file still being written.
     */
    async serverValue(name, make) {
      const file = join(dataDir, name);
      if (!existsSync(file)) {
        const draft = `${file}.${process.pid}.${randomUUID()}`;
        writeFileSync(draft, make(), { mode: 0o600 });
        try {
          linkSync(draft, file);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        } finally {
          unlinkSync(draft);
        }
      }
      return readFileSync(file, 'utf8').trim();
    },
    async fingerprints() {
      const rows = catalog().prepare('select client_db, fingerprint from tenant_fingerprints').all() as {
        client_db: string;
        fingerprint: string;
      }[];
      return new Map(rows.map((r) => [r.client_db, r.fingerprint]));
    },
    async recordFingerprint(clientDb, fingerprint) {
      catalog()
        .prepare(
          'insert into tenant_fingerprints (client_db, fingerprint) values (?, ?) on conflict (client_db) do update set fingerprint = excluded.fingerprint',
        )
        .run(clientDb, fingerprint);
    },
    webhooks: {
      async noted() {
        const rows = catalog().prepare('select client_db from tenant_webhooks').pluck().all() as string[];
        return rows.includes('') ? new Set(rows) : undefined;
      },
      async note(clientDb, active) {
        const statement = active
          ? 'insert or ignore into tenant_webhooks (client_db) values (?)'
          : 'delete from tenant_webhooks where client_db = ?';
        catalog().prepare(statement).run(clientDb);
      },
      /** File by file, each on a read-only connection of its own, closed at once: none is opened as a tenant. */
      async work(names, now) {
        const query = webhookWorkSql(SQLITE_TENANT, now).compile(
          (compiler ??= new Kysely<any>({ dialect: new SqliteDialect({ database: catalog() }) })),
        );
        // Due at the end of time: an event behind some webhook, waiting out a backoff.
        const ever = webhookWorkSql(SQLITE_TENANT, Number.MAX_SAFE_INTEGER).compile(compiler);
        const found = new Map<string, WebhookWork>();
        for (const name of names) {
          const stamp = stampOf(fileOf(name));
          const last = asked.get(name);
          // Not written since asked, and nothing was due then: nothing can be, but for a backoff ending.
          if (
            last &&
            last.stamp === stamp &&
            last.work !== 'due' &&
            performance.now() - last.at < (last.behind ? RECHECK_MS : QUIET_RECHECK_MS)
          ) {
            found.set(name, last.work);
            continue;
          }
          let d: Database.Database | undefined;
          try {
            d = new Database(fileOf(name), { readonly: true, fileMustExist: true });
            const ask = (q: typeof query) => webhookWorkOf(d!.prepare(q.sql).get(...q.parameters) as { active: unknown; due: unknown });
            const work = ask(query);
            found.set(name, work);
            asked.set(name, { stamp, work, behind: work === 'idle' && ask(ever) === 'due', at: performance.now() });
          } catch {
            // A file removed meanwhile, or not migrated: left out.
          } finally {
            d?.close();
          }
        }
        return found;
      },
    },
    opened: async () => settled(open.values()),
    poolStats: () => undefined,
    /** Ready while the data directory can be used and every open tenant file answers a query. */
    async ping() {
      accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
      for (const [clientDb, p] of open) {
        // A tenant closed meanwhile (its file let go) is not a failure of the database.
        await sql`select 1`.execute((await p).db).catch((e) => {
          if (open.get(clientDb) === p) throw e;
        });
      }
    },
    async close() {
      stop();
      const all = await Promise.allSettled(open.values());
      open.clear();
      await checkpointer?.stop();
      catalogDb?.close();
      catalogDb = undefined;
      compiler = undefined;
      checkpointer = undefined;
      for (const r of all) if (r.status === 'fulfilled') await r.value.db.destroy();
    },
  };
}
