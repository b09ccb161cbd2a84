import { sql } from 'kysely';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../server/cli/commands.ts';
import { oneLine, useCli } from '../support/cli.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describeEachDatabase('the mrs command line', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

  for (const [name, command] of Object.entries(COMMANDS)) {
    it(`mrs ${name} --help prints its usage and exits 0`, async () => {
      const r = await mrs(...name.split(' '), '--help');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`usage: mrs ${command.usage}`);
    });
  }

  it('mrs --help lists every command; no command or an unknown one exits 2', async () => {
    const help = await mrs('--help');
    expect(help.code).toBe(0);
    for (const c of Object.values(COMMANDS)) expect(help.out).toContain(c.usage);
    expect((await mrs()).code).toBe(2);
    const unknown = await mrs('frobnicate');
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.err), unknown.err).toBe(true);
  });

  it('a malformed client_db exits 2 with one line', async () => {
    for (const argv of [
      ['tenant', 'create', 'Bad.DB'],
      ['tenant', 'create', 'nodot'],
      ['tenant', 'create', 'a.b.c'],
      ['tenant', 'create', `${'a'.repeat(64)}.main`],
      ['seed', 'bad db', '--work-orders', '1'],
    ]) {
      const r = await mrs(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(oneLine(r.err), r.err).toBe(true);
      expect(r.err).toContain('client_db');
    }
  });

  it('usage mistakes exit 2 with one line', async () => {
    for (const argv of [
      ['tenant', 'create'],
      ['tenant', 'create', 'a.b', 'NOT VALID'],
      ['tenant', 'create', '--file', '/nonexistent/tenants.txt'],
      ['seed', 'demo.main', '--work-orders', '0'],
      ['seed', 'demo.main', '--work-orders', 'ten'],
      ['migrate', '--bogus'],
    ]) {
      const r = await mrs(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(oneLine(r.err), r.err).toBe(true);
    }
  });

  it('tenant create makes a tenant; creating it again, or an existing one, exits 1 with one line', async () => {
    const made = await mrs('tenant', 'create', 'acme.main');
    expect(made.code, made.err).toBe(0);
    expect(await h().service.tenants.list()).toContain('acme.main');
    for (const name of ['acme.main', 'demo.main']) {
      const again = await mrs('tenant', 'create', name);
      expect(again.code).toBe(1);
      expect(oneLine(again.err), again.err).toBe(true);
      expect(again.err).toContain('already exists');
    }
  });

  it('tenant create takes several names and a file; checks them all first, skips and names the ones that exist', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mrs-tenants-')), 'tenants.txt');
    writeFileSync(file, '# onboarding\nbulk.one\n\nbulk.two  # second\nbulk.one\n');
    const refused = await mrs('tenant', 'create', 'bulk.zero', 'Not Valid', '--file', file);
    expect(refused.code, refused.err).toBe(2);
    expect(await h().service.tenants.list()).not.toContain('bulk.zero');

    const made = await mrs('tenant', 'create', 'bulk.zero', '--file', file);
    expect(made.code, made.err).toBe(0);
    expect(await h().service.tenants.list()).toEqual(expect.arrayContaining(['bulk.zero', 'bulk.one', 'bulk.two']));
    expect(made.err).toContain('creating tenants: done, 3 in');

    const again = await mrs('tenant', 'create', 'bulk.three', 'bulk.one', 'bulk.two');
    expect(again.code).toBe(1);
    expect(again.err).toContain('created 1; 2 already exist: bulk.one, bulk.two');
    expect(await h().service.tenants.list()).toContain('bulk.three');
    expect((await mrs('tenant', 'create')).code).toBe(2);
  });

  it('seed inserts N work orders into a tenant; a missing tenant exits 1', async () => {
    const before = Number((await h().get(`${M}/work_orders`)).headers.get('x-total'));
    const r = await mrs('seed', 'demo.main', '--work-orders', '25');
    expect(r.code, r.err).toBe(0);
    const after = await h().get(`${M}/work_orders`);
    expect(after.status, after.text).toBe(200);
    expect(Number(after.headers.get('x-total'))).toBe(before + 25);
    // Statistics for the planner; on PostgreSQL also a vacuum (the visibility map index-only scans need).
    const t = (await h().service.tenants.get('demo.main'))!;
    if (h().db === 'sqlite') {
      const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_stat1 where tbl = 'work_orders'`.execute(t.db);
      expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    } else {
      const { rows } = await sql<{
        vacuumed: boolean;
        analyzed: boolean;
      }>`select last_vacuum is not null as vacuumed, last_analyze is not null as analyzed
        from pg_stat_user_tables where schemaname = ${t.schema!} and relname = 'work_orders'`.execute(t.db);
      expect(rows[0]).toEqual({ vacuumed: true, analyzed: true });
    }
    const missing = await mrs('seed', 'nobody.home', '--work-orders', '1');
    expect(missing.code).toBe(1);
    expect(oneLine(missing.err), missing.err).toBe(true);
  });

  it('migrate brings every tenant up to the definitions and exits 0', async () => {
    const r = await mrs('migrate');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^\d+ tenants? already up to date\nmigrate: 0 migrated, \d+ unchanged, 0 refused in [\d.]+s\n$/);
  });
});

describe('bin/mrs.js as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['bin/mrs.js', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...env },
      timeout: 60_000,
    });

  it('exits 2 with one line for a bad client_db', () => {
    const r = run(['tenant', 'create', 'NOT VALID']);
    expect(r.status, r.stderr).toBe(2);
    expect(oneLine(r.stderr), r.stderr).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('a bad setting stops the start with one line naming it', () => {
    const r = run(['serve'], { PORT: 'eighty' });
    expect(r.status, r.stderr).toBe(1);
    expect(oneLine(r.stderr), r.stderr).toBe(true);
    expect(r.stderr).toContain('PORT');
  });
});
