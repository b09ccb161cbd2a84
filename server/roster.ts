import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Registry } from '../engine/registry.ts';
import type { Config } from './config.ts';
import { migrateShared } from './migrations/shared/index.ts';
import { postgresServerDb } from './tenants/postgres.ts';
import { sqliteCatalogDb } from './tenants/sqlite.ts';

/** How often a server says it is running; one not heard of for three beats is gone. */
export const BEAT_MS = 10_000;

/** A server process on the same data, as its last beat said. */
export interface RunningServer {
  readonly id: string;
  readonly fingerprint: string;
  readonly host: string;
  readonly pid: number;
  readonly started: string;
  readonly seen: string;
  /** The fields it serves, per collection (JSON): what `mrs migrate` compares with the new definitions. */
  readonly fields: string;
}

/** The servers running on one set of data (the catalog file, or `mrs_server.servers`), kept by their beats. */
export interface Roster {
  /** Starts beating as this server (now, then every BEAT_MS) until close(). */
  join(fingerprint: string, registry: Registry): Promise<void>;
  /** The servers heard from within three beats. */
  running(): Promise<RunningServer[]>;
  close(): Promise<void>;
}

const fieldsOf = (registry: Registry): string =>
  JSON.stringify(Object.fromEntries([...registry.resources.values()].map((r) => [r.name, r.fieldNames])));

export async function openRoster(config: Pick<Config, 'databaseUrl' | 'dataDir'>, now: () => number = Date.now): Promise<Roster> {
  const { db, schema } = config.databaseUrl
    ? await postgresServerDb(config.databaseUrl)
    : { db: sqliteCatalogDb(config.dataDir), schema: undefined };
  const q: Kysely<any> = schema ? db.withSchema(schema) : db;
  await migrateShared(q, schema);
  let timer: ReturnType<typeof setInterval> | undefined;
  let me: RunningServer | undefined;
  const beat = async () => {
    if (!me) return;
    const row = { ...me, seen: new Date(now()).toISOString() };
    await q
      .insertInto('servers')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ seen: row.seen }))
      .execute();
  };
  return {
    async join(fingerprint, registry) {
      const started = new Date(now()).toISOString();
      me = { id: randomUUID(), fingerprint, host: hostname(), pid: process.pid, started, seen: started, fields: fieldsOf(registry) };
      await beat();
      // A missed beat is no reason to stop serving: the next one tries again.
      timer = setInterval(() => void beat().catch(() => {}), BEAT_MS);
      timer.unref();
    },
    async running() {
      const since = new Date(now() - 3 * BEAT_MS).toISOString();
      // Those long gone are forgotten here, so the table holds the recent servers only.
      await q
        .deleteFrom('servers')
        .where('seen', '<', new Date(now() - 100 * BEAT_MS).toISOString())
        .execute();
      return (await q.selectFrom('servers').selectAll().where('seen', '>=', since).orderBy('started').execute()) as RunningServer[];
    },
    async close() {
      if (timer) clearInterval(timer);
      if (me)
        await q
          .deleteFrom('servers')
          .where('id', '=', me.id)
          .execute()
          .catch(() => {});
      await db.destroy();
    },
  };
}

/**
 * What `mrs migrate` says of the servers running older definitions: which they are, and what
 * they answer until restarted (503 with Retry-After to requests of a collection whose fields
 * they name but the new definitions no longer hold; additions never disturb them).
 */
export function olderServersNote(servers: readonly RunningServer[], fingerprint: string, registry: Registry, now = Date.now()): string[] {
  const older = servers.filter((s) => s.fingerprint !== fingerprint);
  if (older.length === 0) return [];
  const lines = [
    `${older.length} server${older.length === 1 ? '' : 's'} running older definitions; restart ${older.length === 1 ? 'it' : 'them'}:`,
  ];
  for (const s of older) {
    const gone = goneFields(JSON.parse(s.fields) as Record<string, string[]>, registry);
    const what = gone.length
      ? `answers 503 with Retry-After to requests of ${gone.join('; ')} until restarted`
      : 'keeps serving (the changes only add) until restarted';
    lines.push(`  ${s.host} pid ${s.pid}, seen ${Math.max(0, Math.round((now - Date.parse(s.seen)) / 1000))} s ago: ${what}`);
  }
  return lines;
}

/** Per collection the server knows, the fields it names that the new definitions do not hold. */
function goneFields(known: Record<string, string[]>, registry: Registry): string[] {
  const out: string[] = [];
  for (const [name, fields] of Object.entries(known)) {
    const now = registry.resources.get(name);
    const missing = now ? fields.filter((f) => !now.fieldNames.includes(f)) : [];
    if (!now) out.push(`${name} (gone)`);
    else if (missing.length) out.push(`${name} (${missing.join(', ')} renamed or removed)`);
  }
  return out;
}
