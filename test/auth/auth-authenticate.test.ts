import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { revokeKey } from '../../server/auth/api-keys.ts';
import { sqliteDatabase } from '../../engine/dialects/sqlite/dialect.ts';
import { AUTHENTICATE, ensureUser, makeKey } from '../support/auth.ts';
import { expectProblem } from '../support/fixtures.ts';
import { describeEachDatabase, M, type Reply } from '../support/harness.ts';

const body = (api_key: unknown, client_db: unknown = 'demo.main', username: unknown = 'alice') => ({ api_key, client_db, username });

describeEachDatabase('POST /authenticate', (h) => {
  let alice: { keyId: string; key: string };
  let bobKey: string;
  let revoked: string;
  let otherTenantKey: string;
  beforeAll(async () => {
    const s = h().service;
    await ensureUser(s, 'demo.main', 'alice', ['reader']);
    await ensureUser(s, 'demo.main', 'bob', ['admin']);
    alice = await makeKey(s, 'demo.main', 'alice');
    bobKey = (await makeKey(s, 'demo.main', 'bob')).key;
    const r = await makeKey(s, 'demo.main', 'alice');
    await revokeKey((await s.tenants.get('demo.main'))!, r.keyId);
    revoked = r.key;
    await ensureUser(s, 'other.main', 'alice', ['admin']);
    otherTenantKey = (await makeKey(s, 'other.main', 'alice')).key;
  });
  const auth = (b: unknown, headers: Record<string, string> = {}) => h().request('POST', AUTHENTICATE, { body: b, headers, token: null });

  it('answers 200 with access_token, token_type Bearer, expires_in and refresh_token; the token is served', async () => {
    const r = await auth(body(alice.key));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^mrsr\.demo\.main\.[A-Za-z0-9]{43}$/),
    });
    expect((await h().as(r.body.access_token).get(`${M}/work_orders`)).status).toBe(200);
  });

  it('needs no token, and a bad one sent along does not matter', async () => {
    expect((await auth(body(alice.key), { authorization: 'Bearer junk' })).status).toBe(200);
  });

  it('every failure is the same 401: wrong tenant, user or key, revoked key, key of another tenant', async () => {
    const wrongSecret = alice.key.slice(0, -4) + (alice.key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const failures: Record<string, unknown> = {
      'unknown tenant': body(alice.key, 'nobody.main'),
      'unknown user': body(alice.key, 'demo.main', 'mallory'),
      "another user's key": body(bobKey, 'demo.main', 'alice'),
      'wrong secret': body(wrongSecret),
      'unknown key id': body(`mrs_Unknown1234567_${alice.key.split('_')[2]}`),
      'not a key': body('hunter2'),
      'revoked key': body(revoked),
      'key of another tenant': body(otherTenantKey),
    };
    const answers: [string, Reply][] = [];
    for (const [name, b] of Object.entries(failures)) answers.push([name, await auth(b)]);
    const [, first] = answers[0]!;
    expectProblem(first, 401);
    for (const [name, r] of answers) {
      expect(r.status, name).toBe(401);
      expect(r.text, name).toBe(first.text);
      // The rate-limit window counts down with every call (SPEC 7) and each request has its own id; the rest is the same.
      const fixed = (hs: Headers) => [...hs].filter(([k]) => !/ratelimit|x-request-id/.test(k)).sort();
      expect(fixed(r.headers), name).toEqual(fixed(first.headers));
    }
  });

  it('a malformed body or client_db is 400 naming the fields; malformed JSON is 400', async () => {
    expectProblem(await auth(body(alice.key, 'Demo.Main')), 400, ['client_db']);
    expectProblem(await auth(body(alice.key, 'demo')), 400, ['client_db']);
    expectProblem(await auth({ client_db: 'demo.main' }), 400, ['api_key', 'username']);
    expectProblem(await auth(body(42, 'demo.main', null)), 400, ['api_key', 'username']);
    expectProblem(await auth(body('', '', '')), 400, ['api_key', 'client_db', 'username']);
    expectProblem(await auth([alice.key]), 400);
    expectProblem(await auth('a string'), 400);
    expectProblem(
      await h().request('POST', AUTHENTICATE, { raw: '{"api_key": ', headers: { 'content-type': 'application/json' }, token: null }),
      400,
    );
  });

  it('a body that is not JSON is 415; another method is 405 with Allow: POST', async () => {
    const json = JSON.stringify(body(alice.key));
    expectProblem(await h().request('POST', AUTHENTICATE, { raw: json, headers: { 'content-type': 'text/plain' }, token: null }), 415);
    expectProblem(await h().request('POST', AUTHENTICATE, { raw: json, token: null }), 415);
    const get = await h().request('GET', AUTHENTICATE, { token: null });
    expectProblem(get, 405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('records when a key was last used', async () => {
    const t = (await h().service.tenants.get('demo.main'))!;
    const { keyId, key } = await makeKey(h().service, 'demo.main', 'alice');
    const row = () => t.db.selectFrom('mrs_api_keys').select('last_used').where('key_id', '=', keyId).executeTakeFirstOrThrow();
    expect((await row()).last_used).toBeNull();
    expect((await auth(body(key))).status).toBe(200);
    expect((await row()).last_used).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('keys are never stored in clear: no table row and no database file holds a key or its secret', async () => {
    const s = h().service;
    const made = await makeKey(s, 'demo.main', 'alice');
    expect((await auth(body(made.key))).status).toBe(200);
    const secret = made.key.split('_')[2]!;
    const t = (await s.tenants.get('demo.main'))!;
    const dump: string[] = [];
    const tables =
      t.flavour === sqliteDatabase.flavour
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.db)).rows
        : (
            await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${t.schema}`.execute(
              t.db,
            )
          ).rows;
    expect(tables.map((r) => r.name)).toContain('mrs_api_keys');
    for (const { name } of tables) dump.push(JSON.stringify(await t.db.selectFrom(name).selectAll().execute()));
    const all = dump.join('\n');
    expect(all).toContain(made.keyId); // the dump did read the key rows
    expect(all).not.toContain(secret);
    if (t.flavour === sqliteDatabase.flavour) {
      const dir = s.config.dataDir;
      for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(secret), f).toBe(false);
    }
  });

  it('keys are never logged: nothing written to the console or the process streams holds one', async () => {
    const written: string[] = [];
    const capture = (...args: unknown[]) => void written.push(args.map(String).join(' '));
    for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, m).mockImplementation(capture);
    vi.spyOn(process.stdout, 'write').mockImplementation((c) => (capture(c), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((c) => (capture(c), true));
    const made = await makeKey(h().service, 'demo.main', 'alice');
    const answers = [await auth(body(made.key)), await auth(body(made.key, 'demo.main', 'bob')), await auth(body(made.key, 'nobody.main'))];
    vi.restoreAllMocks();
    expect(answers.map((r) => r.status)).toEqual([200, 401, 401]);
    const secret = made.key.split('_')[2]!;
    for (const w of written) expect(w).not.toContain(secret);
    for (const r of answers.slice(1)) expect(r.text).not.toContain(secret);
  });
});

afterEach(() => vi.restoreAllMocks());
