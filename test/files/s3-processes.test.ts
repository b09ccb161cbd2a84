import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, SERVE, startProcess } from '../../bench/support/processes.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { BASE, M } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { freePort, pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { startS3 } from '../support/s3.ts';
import { stderrOf, terminate, within, type Watch } from '../support/hang.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Attached files with several server processes (SPEC 13): three `mrs serve` on one PostgreSQL
 * database through PgBouncer in transaction mode, each with its own DATA_DIR, the bytes in one
 * S3-compatible bucket. What one process took, another serves.
 */
describe.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())('attached files in S3 with three server processes through PgBouncer', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let bouncer: PgBouncer;
  let s3: Awaited<ReturnType<typeof startS3>>;
  const procs: ChildProcess[] = [];
  const stderrs: (() => string)[] = [];
  const origins: string[] = [];
  const dirs: string[] = [];
  let env: Record<string, string>;
  let auth: Record<string, string>;

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    bouncer = await startPgBouncer(db.url, { poolSize: 3 });
    s3 = await startS3('mrs-fleet');
    env = {
      DATABASE_URL: bouncer.url,
      MIGRATE_DATABASE_URL: db.url,
      PG_PREPARED_STATEMENTS: 'false',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'f'.repeat(40),
      RATE_LIMIT_MAX: '100000',
      FILE_STORE: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: 'mrs-fleet',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    const started = await Promise.allSettled(
      ports.map((port) => {
        const dir = mkdtempSync(join(tmpdir(), 'mrs-fleet-'));
        dirs.push(dir);
        // Not pinned: three processes on one core of a loaded machine answer one at a time.
        return startProcess(SERVE, { ...env, DATA_DIR: dir, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, false);
      }),
    );
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    stderrs.push(...procs.map(stderrOf));
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    origins.push(...ports.map((port) => `http://127.0.0.1:${port}`));
    const key = (await runCommand(['bin/mrs.js', 'key', 'create', 'demo.main', 'admin'], { ...env, DATA_DIR: dirs[0]!, PORT: '0' })).trim();
    const r = await fetch(`${origins[0]}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    auth = { authorization: `Bearer ${((await r.json()) as { access_token: string }).access_token}` };
  }, 120_000);
  // What a hang's failure shows: the database's sessions (direct, not through PgBouncer) and each process's stderr.
  const watch = (): Watch => ({
    databaseUrl: db?.url,
    processes: () => procs.map((p, i) => ({ name: `process ${i} (${origins[i]}, pid ${p.pid})`, stderr: stderrs[i] ?? (() => '') })),
  });
  afterAll(async () => {
    const stopped = await Promise.allSettled(procs.map((p, i) => terminate(p, `process ${i} (pid ${p.pid})`, watch())));
    await bouncer?.stop();
    await db?.drop();
    await s3?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    for (const s of stopped) if (s.status === 'rejected') throw s.reason;
  });

  /** A request to process `i`, its answer read whole, at most 30 s: past that the failure names it, with the hang report. */
  const on = (i: number, path: string, init: RequestInit = {}): Promise<Response> =>
    within(`${init.method ?? 'GET'} ${path} on process ${i} (${origins[i]})`, 30_000, watch(), async (signal) => {
      const r = await fetch(`${origins[i]}${path}`, { ...init, signal, headers: { ...auth, ...(init.headers as Record<string, string>) } });
      return new Response(r.status === 204 ? null : await r.arrayBuffer(), { status: r.status, headers: r.headers });
    });

  it('a file uploaded on one process is listed, downloaded whole and by range, changed and deleted on the others', async () => {
    const wo = (await (
      await on(0, `${M}/work_orders`, { method: 'POST', body: JSON.stringify(WORK_ORDER), headers: { 'content-type': 'application/json' } })
    ).json()) as {
      id: number;
    };
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const body = new FormData();
    body.append('data', new Blob([bytes]), 'pump.bin');
    body.append('description', 'the broken pump');
    const up = await on(0, `${M}/work_orders/${wo.id}/attached_files`, { method: 'POST', body });
    expect(up.status, await up.clone().text()).toBe(201);
    const file = (await up.json()) as { id: number; sha256: string; content_url: string };
    expect(file.sha256).toBe(sha(bytes));
    const at = `${M}/work_orders/${wo.id}/attached_files/${file.id}`;

    expect(((await (await on(1, `${M}/work_orders/${wo.id}/attached_files`)).json()) as { id: number }[]).map((f) => f.id)).toEqual([
      file.id,
    ]);
    const whole = await on(1, `${at}/content`);
    expect(whole.status).toBe(200);
    expect(sha(Buffer.from(await whole.arrayBuffer()))).toBe(sha(bytes));
    const part = await on(2, `${at}/content`, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    // The signed link made on one process opens on another, without a token.
    const link = await fetch(`${origins[2]}${file.content_url}`);
    expect(link.status).toBe(200);
    expect(sha(Buffer.from(await link.arrayBuffer()))).toBe(sha(bytes));

    const patched = await on(2, at, {
      method: 'PATCH',
      body: JSON.stringify({ description: 'after repair' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(200);
    expect(((await (await on(0, at)).json()) as { description: string }).description).toBe('after repair');
    expect((await on(1, at, { method: 'DELETE' })).status).toBe(204);
    expect((await on(0, at)).status).toBe(404);
    expect((await on(2, `${at}/content`)).status).toBe(404);
  });

  it('a keyed upload sent to all three processes at once is kept once (Idempotency-Key)', async () => {
    const wo = (await (
      await on(0, `${M}/work_orders`, { method: 'POST', body: JSON.stringify(WORK_ORDER), headers: { 'content-type': 'application/json' } })
    ).json()) as {
      id: number;
    };
    const bytes = randomBytes(200_000);
    const answers = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const body = new FormData();
        body.append('data', new Blob([bytes]), 'once.bin');
        const r = await on(i, `${M}/work_orders/${wo.id}/attached_files`, {
          method: 'POST',
          body,
          headers: { 'idempotency-key': 'fleet-upload-1' },
        });
        return { status: r.status, body: (await r.json()) as { id?: number } };
      }),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of answers) expect([201, 409]).toContain(a.status);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    const listed = (await (await on(2, `${M}/work_orders/${wo.id}/attached_files`)).json()) as { id: number }[];
    expect(listed.map((f) => f.id)).toEqual([created[0]!.body.id]);
  });
});
