import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEY_STATE_TTL_MS } from '../../server/auth/key-state.ts';
import { COMMANDS } from '../../server/cli/commands.ts';
import { AUTHENTICATE, login } from '../support/auth.ts';
import { oneLine, useCli } from '../support/cli.ts';
import { expectProblem } from '../support/fixtures.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const GROUPS = ['tenant', 'user', 'role', 'key'];
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const wider = (text: string) => text.split('\n').filter((l) => l.length > 80);

describe('mrs help, version and mistakes', () => {
  const mrs = useCli(() => ({}));

  it('mrs --version prints the package version', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await mrs(flag);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(VERSION);
    }
  });

  it('mrs <group> --help lists the commands of every group', async () => {
    for (const group of GROUPS) {
      const r = await mrs(group, '--help');
      expect(r.code, group).toBe(0);
      expect(r.out).toContain(`usage: mrs ${group} <command>`);
      for (const name of Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `)))
        expect(r.out, name).toContain(`  ${name.split(' ')[1]} `);
    }
    expect(Object.keys(COMMANDS)).toEqual(expect.arrayContaining(['tenant list', 'user list', 'user disable', 'user enable', 'role list']));
  });

  it("mrs --help names each group's commands in the group's line", async () => {
    const r = await mrs('--help');
    const flat = r.out.replace(/\s+/g, ' '); // the help wraps descriptions
    for (const group of GROUPS) {
      const subs = Object.keys(COMMANDS)
        .filter((n) => n.startsWith(`${group} `))
        .map((n) => n.split(' ')[1]);
      expect(flat, group).toContain(`(${subs.join(', ')}).`);
    }
    expect(flat).toContain('Users of a tenant (create, list, disable, enable).');
  });

  it('a group alone prints its help on stderr and exits 2; mrs help [command] prints help and exits 0', async () => {
    const r = await mrs('key');
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: mrs key <command>');
    const help = await mrs('help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: mrs <command>');
    const one = await mrs('help', 'key');
    expect(one.code).toBe(0);
    expect(one.out).toContain('usage: mrs key <command>');
  });

  it('every help fits 80 columns', async () => {
    const helps = [['--help'], ...GROUPS.map((g) => [g, '--help']), ...Object.keys(COMMANDS).map((n) => [...n.split(' '), '--help'])];
    for (const argv of helps) {
      const r = await mrs(...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(wider(r.out), argv.join(' ')).toEqual([]);
    }
  });

  it('says what revocation and disabling take, as the key-state cache does', async () => {
    for (const argv of [
      ['key', 'revoke', '--help'],
      ['user', 'disable', '--help'],
      ['user', 'enable', '--help'],
    ]) {
      const r = await mrs(...argv);
      expect(r.out.replace(/\s+/g, ' ')).toContain(`within ${KEY_STATE_TTL_MS / 1000} s`);
    }
  });

  it.each([
    [['tenat', 'list'], 'did you mean tenant'],
    [['tenant', 'crate', 'a.b'], 'did you mean create'],
    [['seed', 'demo.main', '--work-order', '5'], 'did you mean --work-orders'],
    [['user', 'create', 'demo.main', 'x', '--rol', 'admin'], 'did you mean --role'],
  ])('mrs %j: one line, exit 2, and the nearest name', async (argv, hint) => {
    const r = await mrs(...argv);
    expect(r.code).toBe(2);
    expect(oneLine(r.err), r.err).toBe(true);
    expect(r.err).toContain(hint);
    expect(r.out).toBe('');
  });
});

describeEachDatabase(
  'mrs tenant list, role list and user disable',
  (h) => {
    const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

    it('tenant list lists every tenant', async () => {
      expect((await mrs('tenant', 'create', 'acme.north')).code).toBe(0);
      const r = await mrs('tenant', 'list');
      expect(r.code, r.err).toBe(0);
      expect(r.out.split('\n')).toEqual(expect.arrayContaining(['CLIENT_DB', 'acme.north', 'demo.main']));
    });

    it('role list shows the built-in roles and the tenant own, with their grants', async () => {
      expect((await mrs('role', 'create', 'demo.main', 'note_reader', '--grant', 'notes:read')).code).toBe(0);
      const r = await mrs('role', 'list', 'demo.main');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^ROLE\s+GRANTS\s+CREATED$/m);
      expect(r.out).toMatch(/^admin\s+\*:\*\s+built in$/m);
      expect(r.out).toMatch(/^reader\s+\*:read\s+built in$/m);
      expect(r.out).toMatch(/^note_reader\s+notes:read\s+\d{4}-\d\d-\d\dT\S+$/m);
      expect((await mrs('role', 'list', 'nobody.home')).code).toBe(1);
    });

    it('user disable ends the user tokens and keys like a revoked key, and /authenticate refuses it', async () => {
      const you = await login(h().service, { username: 'frank', roles: ['reader'] });
      expect((await h().as(you.token).get(`${M}/work_orders`)).status).toBe(200);
      const r = await mrs('user', 'disable', 'demo.main', 'frank');
      expect(r.code, r.err).toBe(0);
      expectProblem(await h().as(you.token).get(`${M}/work_orders`), 401);
      const again = await h().request('POST', AUTHENTICATE, {
        token: null,
        body: { api_key: you.key, client_db: 'demo.main', username: 'frank' },
      });
      const wrong = await h().request('POST', AUTHENTICATE, {
        token: null,
        body: { api_key: you.key, client_db: 'demo.main', username: 'nobody' },
      });
      expectProblem(again, 401);
      expect(again.body).toEqual(wrong.body);
      const listed = await mrs('user', 'list', 'demo.main');
      expect(listed.out).toMatch(/^USERNAME\s+ROLES\s+CREATED\s+DISABLED$/m);
      expect(listed.out).toMatch(/^frank\s+reader\s+\S+\s+\d{4}-\d\d-\d\dT\S+$/m);
      expect(listed.out).toMatch(/^admin\s+admin\s+\S+\s+-$/m);
      for (const [argv, text] of [
        [['user', 'disable', 'demo.main', 'frank'], 'already disabled'],
        [['user', 'enable', 'demo.main', 'admin'], 'not disabled'],
        [['user', 'disable', 'demo.main', 'ghost'], 'ghost'],
        [['user', 'disable', 'nobody.home', 'frank'], 'nobody.home'],
      ] as const) {
        const refused = await mrs(...argv);
        expect(refused.code, argv.join(' ')).toBe(1);
        expect(oneLine(refused.err), refused.err).toBe(true);
        expect(refused.err).toContain(text);
      }
      // Enabled again: the same key authenticates, and its token works.
      expect((await mrs('user', 'enable', 'demo.main', 'frank')).code).toBe(0);
      const back = await h().request('POST', AUTHENTICATE, {
        token: null,
        body: { api_key: you.key, client_db: 'demo.main', username: 'frank' },
      });
      expect(back.status).toBe(200);
      expect((await h().as(you.token).get(`${M}/work_orders`)).status).toBe(200);
    });
  },
  { keyStateTtlMs: 0 },
);
