import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { terminate } from './hang.ts';

export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Whether PgBouncer tests can run here; under CI=true a missing PgBouncer is a failure, never a skip. */
export function pgbouncerAvailable(): boolean {
  if (existsSync(PGBOUNCER)) return true;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but ${PGBOUNCER} is missing: the PgBouncer tests may not be skipped (apt-get install pgbouncer)`);
  return false;
}

export interface PgBouncer {
  /** `url` with PgBouncer's host and port in place of PostgreSQL's. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Server connections per database and user (default 4: fewer than the clients, so sessions are shared). */
  poolSize?: number;
  /** Sent when a server connection goes back to the pool; empty (the default) leaves session state to leak. */
  resetQuery?: string;
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** PgBouncer refuses to run as root: as root it runs as `postgres`, with its folder handed over. */
function runAs(dir: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  return { uid, gid };
}

async function acceptsConnections(url: string, child: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('select 1');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await c.end().catch(() => {});
    }
  }
  const said = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-5).join('\n') : '';
  throw new Error(`pgbouncer did not accept connections at ${url}:\n${said}`);
}

/**
 * PgBouncer in `pool_mode = transaction` on a free local port in front of the PostgreSQL server
 * of `databaseUrl` (every database on it, as the same user), with its config, auth file and log
 * in a temporary folder; `stop()` ends it and removes the folder.
 */
export async function startPgBouncer(databaseUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
  // The free port can be taken between finding it and PgBouncer binding it: then PgBouncer
  // exits at once, and a new port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(databaseUrl, options);
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

async function startOnFreePort(databaseUrl: string, options: PgBouncerOptions): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username) || 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'mrs-pgbouncer-'));
  const port = await freePort();
  const log = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  // The README's configuration, but trust auth, every database of the server, and no Unix socket.
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 500',
      `server_reset_query = ${options.resetQuery ?? ''}`,
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${log}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  chmodSync(dir, 0o700);
  const child = spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], { ...runAs(dir), stdio: 'ignore' });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const stop = async () => {
    // SIGTERM: immediate shutdown, the clients are done; bounded, as every wait of the process tests.
    await terminate(child, `pgbouncer ${child.pid}`, {}, 10_000).finally(() => rmSync(dir, { recursive: true, force: true }));
  };
  try {
    await acceptsConnections(url.toString(), child, log);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: url.toString(), port, stop };
}
