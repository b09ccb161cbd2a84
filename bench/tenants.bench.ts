/**
 * Many tenants on one database, at each count of BENCH_TENANTS (default 1,100; e.g. 1,100,1000),
 * as ratios against one tenant in the same run: creating them (`mrs tenant create --file`), a
 * restart (`mrs serve` until /healthz answers; the median of BENCH_STARTS, default 3, with the
 * server's RSS idle 2 s after each), the server's RSS after one request to each
 * tenant, and after they have all been idle past TENANT_IDLE_S (BENCH_IDLE_S, default 5, in
 * place of a production timeout of minutes), and `mrs migrate` with nothing to do; at one tenant
 * also a control: as many requests to that one as the largest count has tenants, then idle. On
 * PostgreSQL also what the schemas cost PostgreSQL itself: pg_class rows and the database's size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../server/config.ts';
import { createService } from '../server/service.ts';
import { AUTHENTICATE, ensureUser, makeKey } from '../test/support/auth.ts';
import { freshPostgresDatabase } from '../test/support/pg.ts';
import { eachLimited } from '../server/migrate-tenants.ts';
import { onEachDatabase } from './support/databases.ts';
import { ROOT, rssMiB, runCommand, SERVE } from './support/processes.ts';

const COUNTS = (process.env.BENCH_TENANTS ?? '1,100').split(',').map(Number);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 5);
const M = '/v4_server/external/v1/maintenance';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Restarts measured per count: one start alone swings several times over on a loaded machine. */
const STARTS = Number(process.env.BENCH_STARTS ?? 3);

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `mrs serve` started and the seconds until its first /healthz answer (at most ten minutes). */
async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; seconds: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, SERVE, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
  for (let i = 0; i < 12_000; i++) {
    if (child.exitCode !== null) throw new Error(`mrs serve exited ${child.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, url, seconds: (performance.now() - started) / 1000 };
    await sleep(50);
  }
  child.kill('SIGTERM');
  throw new Error('mrs serve did not answer /healthz');
}

const stop = async (child: ChildProcess) => {
  child.kill('SIGTERM');
  if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
};

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};

const tenantsOpen = async (url: string) => Number(/^mrs_tenants_open (\d+)/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);

/** A token and a one-record read for each tenant and key listed, eight at a time. */
async function requestEach(url: string, keys: Iterable<[string, string]>): Promise<void> {
  await eachLimited([...keys], 8, async ([clientDb, key]) => {
    const auth = await fetch(`${url}${AUTHENTICATE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: clientDb, username: 'admin' }),
    });
    if (auth.status !== 200) throw new Error(`authenticate ${clientDb}: ${auth.status} ${await auth.text()}`);
    const { access_token } = (await auth.json()) as { access_token: string };
    const r = await fetch(`${url}${M}/work_orders?$limit=1`, { headers: { authorization: `Bearer ${access_token}` } });
    if (r.status !== 200) throw new Error(`GET work_orders in ${clientDb}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  });
}

interface Row {
  n: number;
  create: number;
  start: number;
  migrate: number;
  idle: number;
  busy: number;
  after: number;
  /** One tenant only: RSS after as many requests to it as the largest count has tenants, then idle (requests' own growth). */
  control?: number;
  pgClass?: number;
  dbMiB?: number;
  /** pg_class, pg_attribute and pg_index with their indexes. */
  catalogMiB?: number;
}

export async function run(): Promise<void> {
  await onEachDatabase(async (kind) => {
    const rows: Row[] = [];
    for (const n of COUNTS) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-tenants-'));
      const db = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
      const env: Record<string, string> = {
        DATA_DIR: dataDir,
        DATABASE_URL: db?.url ?? '',
        LOG_LEVEL: 'silent',
        TENANT_IDLE_S: String(IDLE_S),
        AUTH_RATE_LIMIT_MAX: '1000000000',
        RATE_LIMIT_MAX: '1000000000', // the control's requests come from one user
        JWT_SECRET: 'bench-tenants-secret-of-at-least-32-characters',
      };
      let server: ChildProcess | undefined;
      try {
        const file = join(dataDir, 'tenants.txt');
        const names = Array.from({ length: n }, (_, i) => `bench.t${i}`);
        writeFileSync(file, names.join('\n'));
        const create = await timed(() => runCommand(['bin/mrs.js', 'tenant', 'create', '--file', file], env));
        // A user and an API key in each tenant, made directly (not measured).
        const keys = new Map<string, string>();
        const setup = await createService(loadConfig({ ...process.env, ...env }));
        try {
          await eachLimited(names, 4, async (clientDb) => {
            await ensureUser(setup, clientDb, 'admin');
            keys.set(clientDb, (await makeKey(setup, clientDb, 'admin')).key);
          });
          // None has webhooks, as a first start's look would note (PostgreSQL's at 1,000 outlasted that start, then ran in the measured one).
          await setup.tenants.webhooks.note('', true);
        } finally {
          await setup.close();
        }
        // The first start creates demo.main; measure the restarts after it.
        await stop((await serve(env)).child);
        const starts: number[] = [];
        const idles: number[] = [];
        let s!: Awaited<ReturnType<typeof serve>>;
        for (let i = 0; i < STARTS; i++) {
          if (server) await stop(server);
          s = await serve(env);
          server = s.child;
          starts.push(s.seconds);
          // Each reading as long after /healthz, before V8 shrinks its heap (some 10 s later, at any count).
          await sleep(2000);
          idles.push(await rssMiB(server.pid!));
        }
        const idle = median(idles);
        server = s.child;
        await requestEach(s.url, keys);
        const busy = await rssMiB(server.pid!);
        while ((await tenantsOpen(s.url)) > 0) await sleep(500);
        await sleep(1000);
        const after = await rssMiB(server.pid!);
        let control: number | undefined;
        if (n === 1) {
          const [only] = keys;
          await requestEach(
            s.url,
            Array.from({ length: Math.max(...COUNTS) }, () => only!),
          );
          while ((await tenantsOpen(s.url)) > 0) await sleep(500);
          await sleep(1000);
          control = await rssMiB(server.pid!);
        }
        await stop(server);
        server = undefined;
        const migrate = await timed(() => runCommand(['bin/mrs.js', 'migrate'], env));
        const row: Row = { n, create, start: median(starts), migrate, idle, busy, after, ...(control === undefined ? {} : { control }) };
        if (db) {
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          const { rows: r } = await client.query(
            `select (select count(*) from pg_class)::int as c, pg_database_size(current_database()) as b,
              pg_total_relation_size('pg_class') + pg_total_relation_size('pg_attribute') + pg_total_relation_size('pg_index') as k`,
          );
          await client.end();
          Object.assign(row, { pgClass: r[0].c, dbMiB: Number(r[0].b) / 2 ** 20, catalogMiB: Number(r[0].k) / 2 ** 20 });
        }
        rows.push(row);
        console.error(`${kind} ${n} tenants measured: ${JSON.stringify({ ...row, starts, idles })}`);
      } finally {
        if (server) await stop(server);
        rmSync(dataDir, { recursive: true, force: true });
        await db?.drop();
      }
    }
    const one = rows[0]!;
    const x = (v: number, of: number) => `x${(v / of).toFixed(2)}`;
    for (const r of rows)
      console.log(
        `${kind} ${r.n} tenants: create ${r.create.toFixed(1)} s (${((r.create / r.n) * 1000).toFixed(0)} ms each), ` +
          `restart to /healthz ${r.start.toFixed(2)} s (${x(r.start, one.start)} of 1; median of ${STARTS}), ` +
          `migrate with nothing to do ${r.migrate.toFixed(2)} s (${x(r.migrate, one.migrate)}), ` +
          `RSS idle ${r.idle.toFixed(0)} MiB (${x(r.idle, one.idle)}), after a request to each ${r.busy.toFixed(0)} MiB (${x(r.busy, one.busy)}), ` +
          `after ${IDLE_S} s idle ${r.after.toFixed(0)} MiB (${x(r.after, one.idle)} of 1 idle)` +
          (r.control === undefined
            ? ''
            : `; control, ${Math.max(...COUNTS)} requests to this one tenant then idle: ${r.control.toFixed(0)} MiB (${x(r.control, one.idle)})`) +
          (r.pgClass === undefined
            ? ''
            : `; PostgreSQL: ${r.pgClass} pg_class rows, catalog ${r.catalogMiB!.toFixed(0)} MiB, database ${r.dbMiB!.toFixed(0)} MiB`),
      );
  });
}
