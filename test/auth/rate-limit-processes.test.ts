import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

function run(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/mrs.js', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`mrs ${args.join(' ')}: ${code} ${err}`))));
  });
}

async function serve(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/mrs.js', 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).ok) return child;
    } catch {
      /* not yet listening */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('mrs serve did not become ready');
}

const describePg = TEST_DATABASE_URL ? describe : describe.skip;

describePg('rate limiting across two real server processes on one PostgreSQL database', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  const procs: ChildProcess[] = [];
  const env = (port: number) => ({
    DATABASE_URL: db.url,
    PORT: String(port),
    RATE_LIMIT_MAX: '10',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'x'.repeat(40),
  });
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    procs.push(await serve(env(18761)));
    procs.push(await serve(env(18762)));
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('exit', r)))));
    await db?.drop();
  });

  it('allows exactly the limit per key, the two processes together', async () => {
    const key = (await run(['key', 'create', 'demo.main', 'admin'], env(0))).trim();
    const auth = await fetch('http://127.0.0.1:18761/v4_server/external/v1/authenticate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    const { access_token } = (await auth.json()) as { access_token: string };
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`http://127.0.0.1:${i % 2 ? 18761 : 18762}/v4_server/external/v1/maintenance/work_orders`, {
          headers: { authorization: `Bearer ${access_token}` },
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });
});
