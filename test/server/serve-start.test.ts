import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLine } from '../support/cli.ts';
import { MRS, serveChild, stopChild } from '../support/serve-child.ts';

/** Generous for a loaded machine; a start that fails without exiting never ends at all. */
const DEADLINE_MS = 20_000;

/** `mrs serve` with `env`; resolves with how it ended, or rejects (after killing it) when it is still alive at the deadline. */
function serveOnce(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const full: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: 'info', ...env };
  if (!('DATABASE_URL' in env)) delete full.DATABASE_URL;
  const child = spawn(process.execPath, [MRS, 'serve'], { env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mrs serve was still running after ${DEADLINE_MS} ms: ${stderr}`));
    }, DEADLINE_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // Let the pipes drain: 'exit' may come before the last output.
      child.once('close', () => resolve({ code, stdout, stderr }));
      if (child.stdout!.readableEnded && child.stderr!.readableEnded) resolve({ code, stdout, stderr });
    });
  });
}

describe('mrs serve that cannot start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-start-failure-'));
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const expectFailedStart = (r: { code: number | null; stderr: string }, setting: string) => {
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.code, r.stderr).not.toBeNull();
    expect(oneLine(r.stderr), r.stderr).toBe(true);
    expect(r.stderr).toContain(setting);
  };

  it('exits non-zero at once with one line naming PORT when the port is taken, and closes its databases', async () => {
    const r = await serveOnce({ DATA_DIR: dataDir, PORT: String(takenPort), HOST: '127.0.0.1' });
    expectFailedStart(r, 'PORT');
    expect(r.stderr).toContain('in use');
    // The tenant files were opened (the demo tenant made) and closed: SQLite leaves no write-ahead log behind.
    expect(readdirSync(dataDir)).toContain('demo.main.sqlite');
    expect(readdirSync(dataDir).filter((f) => f.endsWith('-wal'))).toEqual([]);
  });

  it('names HOST when it is not a known address', async () => {
    expectFailedStart(await serveOnce({ DATA_DIR: dataDir, PORT: '0', HOST: 'no-such-host.invalid' }), 'HOST');
  });

  it('names TLS_CERT_FILE or TLS_KEY_FILE when it cannot be read', async () => {
    const missing = join(dataDir, 'missing.pem');
    expectFailedStart(await serveOnce({ DATA_DIR: dataDir, PORT: '0', TLS_CERT_FILE: missing, TLS_KEY_FILE: MRS }), 'TLS_CERT_FILE');
    expectFailedStart(await serveOnce({ DATA_DIR: dataDir, PORT: '0', TLS_CERT_FILE: MRS, TLS_KEY_FILE: missing }), 'TLS_KEY_FILE');
  });

  it('names DATABASE_URL when the database cannot be reached, without its password', async () => {
    const r = await serveOnce({ DATA_DIR: dataDir, PORT: '0', DATABASE_URL: 'postgres://postgres:hunter2secret@127.0.0.1:1/x' });
    expectFailedStart(r, 'DATABASE_URL');
    expect(r.stderr).not.toContain('hunter2secret');
  });
});

describe('mrs serve that starts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-banner-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the API base, a docs URL that opens without a token, and how to get a key', async () => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    };
    delete env.DATABASE_URL;
    const { child, stderr } = await serveChild(env);
    try {
      const text = stderr();
      const [, base] = /mrs serving (http:\/\/127\.0\.0\.1:\d+\/v4_server\/external\/v1)\n/.exec(text)!;
      const docs = /API docs: +(\S+)/.exec(text)![1]!;
      expect(docs).toBe(`${base}/docs`);
      const page = await fetch(docs);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      // A DATA_DIR of its own: the key's command must be given it too (without it, another database).
      expect(text).toMatch(/API key: +npx mrs key create demo\.main admin +\(with this server's DATA_DIR\)\n/);
    } finally {
      await stopChild(child);
    }
  });
});
