import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { tenantSegment } from '../../adapters/files/counted.ts';
import { BASE, DATABASES, M } from '../support/harness.ts';
import { freshPostgresDatabase } from '../support/pg.ts';
import { within } from '../support/hang.ts';
import { serveChild, stopChild } from '../support/serve-child.ts';

const MRS = join(import.meta.dirname, '../..', 'bin', 'mrs.js');

/** Resolves with the first match of `pattern` in what a stream has written so far or writes later. */
function waitFor(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) {
        stream.off('data', onData);
        resolve(m);
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`stream ended before ${pattern}: ${seen}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

/** Waits until a new connection to the port is refused (the listening socket is closed); a reset one was not served either. */
async function refused(port: number): Promise<string> {
  for (;;) {
    const code = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve('connected')));
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    if (code === 'ECONNREFUSED') return code;
  }
}

for (const db of DATABASES) {
  describe(`SIGTERM on mrs serve [${db}]`, () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    it('stops accepting, finishes the request in flight, closes the database and exits 0', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'mrs-shutdown-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      };
      delete env.DATABASE_URL;
      if (db === 'postgres') {
        const fresh = await freshPostgresDatabase();
        cleanups.push(fresh.drop);
        env.DATABASE_URL = fresh.url;
      }
      const child = spawn(process.execPath, [MRS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
      const [, port] = await waitFor(child.stderr!, /mrs serving http:\/\/127\.0\.0\.1:(\d+)\//);
      const key = spawnSync(process.execPath, [MRS, 'key', 'create', 'demo.main', 'admin'], { env, encoding: 'utf8' });
      expect(key.status, key.stderr).toBe(0);
      const auth = await fetch(`http://127.0.0.1:${port}${BASE}/authenticate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: key.stdout.trim(), client_db: 'demo.main', username: 'admin' }),
      });
      expect(auth.status).toBe(200);
      const { access_token } = (await auth.json()) as { access_token: string };

      // A request in flight: headers sent with Expect: 100-continue; the server's 100 answer shows it has the request.
      const body = JSON.stringify({ department_id: 7, work_order_type_id: 2, work_order_type_group_id: 3 });
      const socket: Socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.setEncoding('utf8');
      const continued = waitFor(socket, /HTTP\/1\.1 100 Continue\r\n\r\n/);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('data', (d) => (answer += d));
      socket.write(
        `POST ${M}/work_orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${access_token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await continued;

      const stopping = waitFor(child.stdout!, /"msg":"stopping/);
      child.kill('SIGTERM');
      await stopping;
      expect(await refused(Number(port))).toBe('ECONNREFUSED');

      socket.write(body);
      await closed;
      expect(answer).toMatch(/HTTP\/1\.1 201 Created/);
      expect(await exited(child)).toBe(0);

      // The record was stored, and the databases were closed: SQLite leaves no write-ahead log behind.
      if (db === 'sqlite') {
        expect(readdirSync(dataDir).filter((f) => f.endsWith('-wal'))).toEqual([]);
        const file = new Database(join(dataDir, 'demo.main.sqlite'), { readonly: true });
        expect(file.prepare('select count(*) as n from work_orders where department_id = 7').get()).toEqual({ n: 1 });
        file.close();
      } else {
        const c = new pg.Client({ connectionString: env.DATABASE_URL });
        await c.connect();
        const r = await c.query(`select count(*)::int as n from "demo.main".work_orders where department_id = 7`);
        const others = await c.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
        );
        await c.end();
        expect(r.rows[0].n).toBe(1);
        expect(others.rows[0].n).toBe(0);
      }
    });
  });
}

describe('SIGTERM on mrs serve while a client that left midway had an upload in flight', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => cleanups.reverse().forEach((c) => c()));

  it('ends that upload, keeping nothing of it, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mrs-shutdown-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const { origin, child } = await serveChild(env);
    cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    const key = spawnSync(process.execPath, [MRS, 'key', 'create', 'demo.main', 'admin'], { env, encoding: 'utf8' });
    const auth = await fetch(`${origin}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key.stdout.trim(), client_db: 'demo.main', username: 'admin' }),
    });
    const bearer = `Bearer ${((await auth.json()) as { access_token: string }).access_token}`;
    const made = await fetch(`${origin}${M}/work_orders`, {
      method: 'POST',
      headers: { authorization: bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ department_id: 7, work_order_type_id: 2, work_order_type_group_id: 3 }),
    });
    const files = `${M}/work_orders/${((await made.json()) as { id: number }).id}/attached_files`;

    // A third of a file sent, then the connection dropped while the server stores it.
    const socket = connect(Number(new URL(origin).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST ${files} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer}\r\n` +
        `Content-Type: multipart/form-data; boundary=cut\r\nContent-Length: 900000\r\n\r\n` +
        `--cut\r\nContent-Disposition: form-data; name="data"; filename="pump.bin"\r\n\r\n${'x'.repeat(300_000)}`,
    );
    const tmp = join(dataDir, 'files', tenantSegment('demo.main'), 'tmp');
    await within('the upload reaching the store', 30_000, {}, async (signal) => {
      while (!signal.aborted && !(existsSync(tmp) && readdirSync(tmp).length > 0)) await new Promise((r) => setTimeout(r, 20));
    });
    socket.destroy();

    await stopChild(child);
    expect(child.exitCode).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe.skipIf(!DATABASES.includes('postgres'))('SIGTERM on mrs serve with a request that never ends [postgres]', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('exits 1 once the stop has had 15 s, saying requests were still in flight, instead of waiting forever', async () => {
    const db = await freshPostgresDatabase();
    cleanups.push(db.drop);
    const dataDir = mkdtempSync(join(tmpdir(), 'mrs-shutdown-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      PORT: '0',
      LOG_LEVEL: 'error',
    };
    const child = spawn(process.execPath, [MRS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let logged = '';
    child.stdout!.on('data', (d) => (logged += d));
    const [, port] = await waitFor(child.stderr!, /mrs serving http:\/\/127\.0\.0\.1:(\d+)\//);
    const key = spawnSync(process.execPath, [MRS, 'key', 'create', 'demo.main', 'admin'], { env, encoding: 'utf8' });
    const auth = await fetch(`http://127.0.0.1:${port}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key.stdout.trim(), client_db: 'demo.main', username: 'admin' }),
    });
    const { access_token } = (await auth.json()) as { access_token: string };

    // Another session holds the table: the list waits on its lock, which nothing here releases until the end.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query(`begin; lock table "demo.main".work_orders in access exclusive mode`);
    void fetch(`http://127.0.0.1:${port}${M}/work_orders`, { headers: { authorization: `Bearer ${access_token}` } }).catch(() => {});
    await within('the list waiting on the lock', 30_000, { databaseUrl: db.url }, async (signal) => {
      const waiting = `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      while (!signal.aborted && (await holder.query(waiting)).rows[0].n === 0) await new Promise((r) => setTimeout(r, 50));
    });

    child.kill('SIGTERM');
    expect(await within('mrs serve after SIGTERM', 40_000, {}, () => exited(child))).toBe(1);
    expect(logged).toMatch(/still stopping 15 s later: exiting with requests in flight/);
  }, 90_000);
});
