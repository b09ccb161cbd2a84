import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { listUsers } from '../../server/auth/accounts.ts';
import { loadConfig } from '../../server/config.ts';
import { createService, ensureDemoTenant } from '../../server/service.ts';
import { AUTHENTICATE, authenticate } from '../support/auth.ts';
import { oneLine, useCli } from '../support/cli.ts';
import { expectProblem } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { freshPostgresDatabase } from '../support/pg.ts';

const KEY = /^mrs_[A-Za-z0-9]+_[A-Za-z0-9]+$/;

describeEachDatabase(
  'mrs user, role and key commands',
  (h) => {
    const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));
    const expectRefused = (r: { code: number; err: string }, code: 1 | 2, text?: string) => {
      expect(r.code, r.err).toBe(code);
      expect(oneLine(r.err), r.err).toBe(true);
      if (text) expect(r.err).toContain(text);
    };

    it('user create makes a user with roles; user list shows it; creating it again exits 1', async () => {
      const r = await mrs('user', 'create', 'demo.main', 'carol', '--role', 'reader');
      expect(r.code, r.err).toBe(0);
      const list = await mrs('user', 'list', 'demo.main');
      expect(list.code).toBe(0);
      expect(list.out).toMatch(/^admin\s+admin\s/m);
      expect(list.out).toMatch(/^carol\s+reader\s/m);
      expectRefused(await mrs('user', 'create', 'demo.main', 'carol', '--role', 'reader'), 1, 'already exists');
    });

    it('user create refuses bad input: exit 2 for usage, 1 for an unknown role or tenant', async () => {
      expectRefused(await mrs('user', 'create', 'demo.main', 'dave'), 2, '--role');
      expectRefused(await mrs('user', 'create', 'demo.main', 'no spaces', '--role', 'reader'), 2, 'username');
      expectRefused(await mrs('user', 'create', 'Demo', 'dave', '--role', 'reader'), 2, 'client_db');
      expectRefused(await mrs('user', 'create', 'demo.main', 'dave', '--role', 'Bad-Role'), 2, 'role');
      expectRefused(await mrs('user', 'create', 'demo.main', 'dave', '--role', 'ghost'), 1, 'ghost');
      expectRefused(await mrs('user', 'create', 'nobody.home', 'dave', '--role', 'reader'), 1, 'nobody.home');
      expectRefused(await mrs('user', 'list', 'nobody.home'), 1, 'nobody.home');
    });

    it('role create makes a role from grants; the role works; again, or a built-in name, exits 1; bad grants exit 2', async () => {
      const r = await mrs(
        'role',
        'create',
        'demo.main',
        'sr_writer',
        '--grant',
        'service_requests:create',
        '--grant',
        'service_requests:read',
      );
      expect(r.code, r.err).toBe(0);
      expect((await mrs('user', 'create', 'demo.main', 'erin', '--role', 'sr_writer')).code).toBe(0);
      const key = (await mrs('key', 'create', 'demo.main', 'erin')).out.trim();
      const erin = h().as(await authenticate(h().service, 'demo.main', 'erin', key));
      expect((await erin.post(`${M}/service_requests`, { description: 'x' })).status).toBe(201);
      expect((await erin.get(`${M}/service_requests`)).status).toBe(200);
      expectProblem(await erin.get(`${M}/work_orders`), 403);
      expect((await mrs('role', 'create', 'demo.main', 'everything', '--grant', '*:*')).code).toBe(0);
      expect((await mrs('role', 'create', 'demo.main', 'all_reader', '--grant', 'all:read')).code).toBe(0);
      expectRefused(await mrs('role', 'create', 'demo.main', 'sr_writer', '--grant', 'notes:read'), 1, 'already exists');
      expectRefused(await mrs('role', 'create', 'demo.main', 'admin', '--grant', 'notes:read'), 1, 'already exists');
      expectRefused(await mrs('role', 'create', 'demo.main', 'x'), 2, '--grant');
      for (const grant of ['nothing:read', 'notes:fly', 'notes', 'notes:read:x'])
        expectRefused(await mrs('role', 'create', 'demo.main', 'x', '--grant', grant), 2, grant);
      expectRefused(await mrs('role', 'create', 'nobody.home', 'x', '--grant', 'notes:read'), 1, 'nobody.home');
    });

    it('key create prints only the key on stdout (nothing else, and not on stderr); the key authenticates', async () => {
      const r = await mrs('key', 'create', 'demo.main', 'admin');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^mrs_[A-Za-z0-9]+_[A-Za-z0-9]+\n$/);
      const key = r.out.trim();
      expect(r.err).not.toContain(key.split('_')[2]);
      const token = await authenticate(h().service, 'demo.main', 'admin', key);
      expect((await h().as(token).get(`${M}/work_orders`)).status).toBe(200);
    });

    it('key create refuses an unknown user or tenant (exit 1, nothing on stdout) and bad input (exit 2)', async () => {
      for (const [argv, code] of [
        [['key', 'create', 'demo.main', 'ghost'], 1],
        [['key', 'create', 'nobody.home', 'admin'], 1],
        [['key', 'create', 'demo.main'], 2],
        [['key', 'create', 'demo', 'admin'], 2],
      ] as const) {
        const r = await mrs(...argv);
        expectRefused(r, code);
        expect(r.out).toBe('');
      }
    });

    it('key list shows ids, users, created, last used and revoked, never a key; revoke ends its tokens and refresh tokens', async () => {
      const key = (await mrs('key', 'create', 'demo.main', 'admin')).out.trim();
      const keyId = key.split('_')[1]!;
      const token = await authenticate(h().service, 'demo.main', 'admin', key);
      expect((await h().as(token).get(`${M}/work_orders`)).status).toBe(200);
      const listed = await mrs('key', 'list', 'demo.main');
      expect(listed.code).toBe(0);
      expect(listed.out.split('\n')[0]).toMatch(/KEY_ID\s+USERNAME\s+CREATED\s+LAST_USED\s+REVOKED/);
      const line = listed.out.split('\n').find((l) => l.startsWith(keyId))!;
      expect(line).toMatch(new RegExp(`^${keyId}\\s+admin\\s+\\d{4}-\\d\\d-\\d\\dT\\S+\\s+\\d{4}-\\d\\d-\\d\\dT\\S+\\s+-$`));
      expect(listed.out).not.toContain(key.split('_')[2]);
      expect(listed.out).not.toMatch(KEY);
      const login = { api_key: key, client_db: 'demo.main', username: 'admin' };
      const { refresh_token } = (await h().request('POST', AUTHENTICATE, { body: login, token: null })).body;
      const revoke = await mrs('key', 'revoke', 'demo.main', keyId);
      expect(revoke.code, revoke.err).toBe(0);
      const after = (await mrs('key', 'list', 'demo.main')).out.split('\n').find((l) => l.startsWith(keyId))!;
      expect(after).toMatch(/\s\d{4}-\d\d-\d\dT\S+$/);
      expectProblem(await h().as(token).get(`${M}/work_orders`), 401);
      expectProblem(await h().request('POST', `${BASE}/tokens/refresh`, { body: { refresh_token }, token: null }), 404);
      expectRefused(await mrs('key', 'revoke', 'demo.main', keyId), 1, 'already revoked');
      expectRefused(await mrs('key', 'revoke', 'demo.main', 'NoSuchKey'), 1, 'NoSuchKey');
      expectRefused(await mrs('key', 'revoke', 'demo.main', 'not-an-id'), 2, 'key-id');
      expectRefused(await mrs('key', 'list', 'nobody.home'), 1, 'nobody.home');
    });
  },
  { keyStateTtlMs: 0 },
);

describeEachDatabase('npm start (mrs serve) on fresh data', (h) => {
  it('creates tenant demo.main with user admin (role admin) when absent, and leaves them on later starts', async () => {
    const fresh =
      h().db === 'sqlite'
        ? { env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'mrs-fresh-')) }, drop: async () => {} }
        : await freshPostgresDatabase().then((f) => ({ env: { DATABASE_URL: f.url }, drop: f.drop }));
    const service = await createService(loadConfig(fresh.env));
    try {
      expect(await service.tenants.get('demo.main')).toBeUndefined();
      expect(await ensureDemoTenant(service.tenants)).toEqual({ createdTenant: true, createdAdmin: true });
      expect(await listUsers((await service.tenants.get('demo.main'))!)).toEqual([
        { username: 'admin', roles: ['admin'], created: expect.any(String) },
      ]);
      expect(await ensureDemoTenant(service.tenants)).toEqual({ createdTenant: false, createdAdmin: false });
    } finally {
      await service.close();
      if ('DATA_DIR' in fresh.env) rmSync(fresh.env.DATA_DIR, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});

describe('bin/mrs.js key create as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-cli-keys-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/mrs.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
    });

  it('prints only the key on stdout', () => {
    expect(run('tenant', 'create', 'demo.main').status).toBe(0);
    expect(run('user', 'create', 'demo.main', 'admin', '--role', 'admin').status).toBe(0);
    const made = run('key', 'create', 'demo.main', 'admin');
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^mrs_[A-Za-z0-9]+_[A-Za-z0-9]{43}\n$/);
    expect(made.stderr).not.toContain(made.stdout.trim());
  }, 120_000); // three CLI processes, each compiling on first use
});
