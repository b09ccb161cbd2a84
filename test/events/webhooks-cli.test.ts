import { expect, it } from 'vitest';
import { oneLine, useCli } from '../support/cli.ts';
import { describeEachDatabase } from '../support/harness.ts';

/** `mrs webhook create|list|delete|enable` (SPEC 9): the secret is printed once and never listed. */

const URL_OK = 'http://127.0.0.1:9/hook';

describeEachDatabase('mrs webhook commands', (h) => {
  const env =
    (extra: Record<string, string> = {}) =>
    () => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '', ...extra });
  const mrs = useCli(env({ WEBHOOK_ALLOW_PRIVATE: 'true' }));
  const expectRefused = (r: { code: number; err: string }, code: 1 | 2, text: string) => {
    expect(r.code, r.err).toBe(code);
    expect(oneLine(r.err), r.err).toBe(true);
    expect(r.err).toContain(text);
  };

  it('create prints the id and a whsec_ secret on stdout once; list shows the webhook without it; delete removes it', async () => {
    const made = await mrs('webhook', 'create', 'demo.main', URL_OK, '--collection', 'work_orders', '--collection', 'notes');
    expect(made.code, made.err).toBe(0);
    const [id, secret, ...rest] = made.out.trim().split('\n');
    expect(rest).toEqual([]);
    expect(id).toMatch(/^wh_/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret!.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(made.err).not.toContain(secret);
    const list = await mrs('webhook', 'list', 'demo.main');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^ID\s+URL\s+COLLECTIONS\s+POSITION\s+STATE\s+LAST_ERROR$/m);
    expect(list.out).toMatch(new RegExp(`^${id}\\s+${URL_OK}\\s+work_orders,notes\\s+\\d+\\s+active\\s+-$`, 'm'));
    expect(list.out + list.err).not.toContain(secret!.slice(6));
    expect((await mrs('webhook', 'delete', 'demo.main', id!)).code).toBe(0);
    expect((await mrs('webhook', 'list', 'demo.main')).out).not.toContain(id);
    expectRefused(await mrs('webhook', 'delete', 'demo.main', id!), 1, 'does not exist');
  });

  it('a new webhook starts after the feed current end', async () => {
    await h().post('/v4_server/external/v1/maintenance/work_orders', {
      department_id: 1,
      work_order_type_id: 2,
      work_order_type_group_id: 3,
    });
    const t = (await h().service.tenants.get('demo.main'))!;
    const end = await t.events.highest(t);
    expect(end).toBeGreaterThan(0);
    const made = await mrs('webhook', 'create', 'demo.main', URL_OK);
    const id = made.out.split('\n')[0]!;
    expect((await mrs('webhook', 'list', 'demo.main')).out).toMatch(new RegExp(`^${id}\\s+\\S+\\s+\\*\\s+${end}\\s+active`, 'm'));
  });

  it('enable makes a webhook active again; an unknown one exits 1', async () => {
    const id = (await mrs('webhook', 'create', 'demo.main', URL_OK)).out.split('\n')[0]!;
    const t = (await h().service.tenants.get('demo.main'))!;
    await t.db.updateTable('mrs_webhooks').set({ state: 'disabled', last_error: 'HTTP 500' }).where('id', '=', id).execute();
    expect((await mrs('webhook', 'list', 'demo.main')).out).toMatch(new RegExp(`^${id}\\s.*disabled\\s+HTTP 500$`, 'm'));
    expect((await mrs('webhook', 'enable', 'demo.main', id)).code).toBe(0);
    expect((await mrs('webhook', 'list', 'demo.main')).out).toMatch(new RegExp(`^${id}\\s.*active\\s+-$`, 'm'));
    expectRefused(await mrs('webhook', 'enable', 'demo.main', 'wh_nothere'), 1, 'does not exist');
  });

  it('create refuses an unknown collection, a URL that is not http(s), a missing tenant', async () => {
    expectRefused(await mrs('webhook', 'create', 'demo.main', URL_OK, '--collection', 'gadgets'), 2, 'gadgets');
    expectRefused(await mrs('webhook', 'create', 'demo.main', 'ftp://example.com/x'), 2, 'http');
    expectRefused(await mrs('webhook', 'create', 'demo.main', 'not a url'), 2, 'not a URL');
    expectRefused(await mrs('webhook', 'create', 'nobody.main', URL_OK), 1, 'does not exist');
  });
});

describeEachDatabase('mrs webhook create without WEBHOOK_ALLOW_PRIVATE', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));
  it.each([
    'http://127.0.0.1/x',
    'http://localhost:8080/x',
    'https://10.1.2.3/x',
    'http://192.168.0.1/x',
    'http://169.254.169.254/latest',
    'http://[::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://[fe80::1]/x',
    'http://[fd12::1]/x',
  ])('refuses %s (exit 2, naming why)', async (url) => {
    const r = await mrs('webhook', 'create', 'demo.main', url);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('private');
    expect(r.out).toBe('');
  });
});
