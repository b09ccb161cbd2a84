import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SERVE, startProcess } from '../../bench/support/processes.ts';
import { RESOURCES_DIR } from '../../server/load-resources.ts';
import { schemaOf } from '../../server/tenants/postgres.ts';
import { freshPostgresDatabase } from './pg.ts';
import { freePort, startPgBouncer } from './pgbouncer.ts';
import { rawQuery, type DataPlace } from './schema-dump.ts';

/**
 * A release as `mrs` child processes see it: a folder of definitions (RESOURCES_DIR) and one of
 * steps (MIGRATIONS_DIR), made from the checkout's resources/ with work_orders' source changed.
 */
export function releaseFolders(change: { workOrders?: (source: string) => string; steps?: Record<string, string> } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'mrs-release-'));
  const resources = join(root, 'resources');
  const migrations = join(root, 'migrations');
  mkdirSync(resources);
  mkdirSync(migrations);
  // An absolute path: the compiled CLI bundles these files, and esbuild takes no file: URL.
  const define = join(RESOURCES_DIR, '..', 'engine', 'define.ts');
  for (const file of readdirSync(RESOURCES_DIR).filter((f) => f.endsWith('.ts'))) {
    let source = readFileSync(join(RESOURCES_DIR, file), 'utf8').replaceAll("'../engine/define.ts'", `'${define}'`);
    if (file === 'work-orders.ts' && change.workOrders) source = change.workOrders(source);
    writeFileSync(join(resources, file), source);
  }
  for (const [file, source] of Object.entries(change.steps ?? {})) writeFileSync(join(migrations, file), source);
  return { env: { RESOURCES_DIR: resources, MIGRATIONS_DIR: migrations }, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** work_orders with a required `site` field added (a step must fill it where rows exist). */
export const withSite = (source: string) => source.replace('fields: {', 'fields: {\n    site: string({ required: true }),');

/** A step that counts its runs in a table of its own, and fills `site`. */
export const COUNTED_STEP = `export default {
  async up({ db, tenant }: { db: any; tenant: string }) {
    await db.schema.createTable('step_runs').ifNotExists().addColumn('tenant', 'text').execute();
    await db.insertInto('step_runs').values({ tenant }).execute();
    await db.updateTable('work_orders').set({ site: 'plant' }).execute();
  },
};
`;

export type PlaceKind = 'sqlite' | 'postgres' | 'pgbouncer';

/** Where child processes keep their data: `env` for them, `direct` for the test's own connections. */
export async function processPlace(kind: PlaceKind) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-processes-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  const base = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000000' };
  if (kind === 'sqlite') return { env: base as Record<string, string>, direct: { dataDir } as DataPlace, cleanup: async () => removeDir() };
  const db = await freshPostgresDatabase();
  if (kind === 'postgres')
    return {
      env: { ...base, DATABASE_URL: db.url } as Record<string, string>,
      direct: { dataDir, databaseUrl: db.url } as DataPlace,
      cleanup: async () => (await db.drop(), removeDir()),
    };
  const bouncer = await startPgBouncer(db.url, { poolSize: 4 });
  return {
    env: { ...base, DATABASE_URL: bouncer.url, MIGRATE_DATABASE_URL: db.url, PG_PREPARED_STATEMENTS: 'false' } as Record<string, string>,
    direct: { dataDir, databaseUrl: db.url } as DataPlace,
    cleanup: async () => (await bouncer.stop(), await db.drop(), removeDir()),
  };
}

/** `mrs serve` processes started at once (not pinned: they share the cores); their origins. */
export async function startServers(
  n: number,
  env: Record<string, string>,
  waitMs?: number,
): Promise<{ origins: string[]; procs: ChildProcess[] }> {
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const started = await Promise.allSettled(
    ports.map((port) => startProcess(SERVE, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, false, waitMs)),
  );
  const procs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stopServers(procs);
    throw failed.reason;
  }
  return { origins: ports.map((p) => `http://127.0.0.1:${p}`), procs };
}

export async function stopServers(procs: readonly ChildProcess[]): Promise<void> {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('exit', r)))));
}

/** Each tenant's rows in `step_runs`, read over connections of the test's own. */
export async function stepRuns(place: DataPlace, tenants: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (place.databaseUrl === undefined) {
    for (const t of tenants) out[t] = Number((await rawQuery(place, 'select count(*) as n from step_runs', t))[0]!.n);
    return out;
  }
  const client = new pg.Client({ connectionString: place.databaseUrl });
  await client.connect();
  try {
    for (const t of tenants) out[t] = Number((await client.query(`select count(*) as n from "${schemaOf(t)}".step_runs`)).rows[0].n);
  } finally {
    await client.end();
  }
  return out;
}
