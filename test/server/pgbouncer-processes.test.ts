import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, SERVE, startProcess } from '../../bench/support/processes.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { freePort, pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';

const BASE = '/v4_server/external/v1';
const M = `${BASE}/maintenance`;
const WORK_ORDER = { department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1 };

/**
 * What the contract says holds across several server processes, with three `mrs serve` on one
 * PostgreSQL database through PgBouncer in transaction mode (few server sessions, no reset
 * query), and the admin commands through it too.
 */
describe.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())('three server processes through PgBouncer (pool_mode = transaction)', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let bouncer: PgBouncer;
  const procs: ChildProcess[] = [];
  const origins: string[] = [];
  let env: Record<string, string>;
  const mrs = async (...args: string[]) => (await runCommand(['bin/mrs.js', ...args], { ...env, PORT: '0' })).trim();

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    bouncer = await startPgBouncer(db.url, { poolSize: 3 });
    env = {
      DATABASE_URL: bouncer.url,
      MIGRATE_DATABASE_URL: db.url,
      PG_PREPARED_STATEMENTS: 'false',
      RATE_LIMIT_MAX: '40',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'x'.repeat(40),
    };
    // Started together on an empty database: each creates and migrates demo.main unless another did.
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    const started = await Promise.allSettled(
      ports.map((port) => startProcess(SERVE, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`)),
    );
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value); // afterAll stops these even when another failed
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    origins.push(...ports.map((port) => `http://127.0.0.1:${port}`));
  }, 90_000);
  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.on('exit', r)))));
    await bouncer?.stop();
    await db?.drop();
  });

  const authenticate = async (key: string, origin = origins[0]!) => {
    const r = await fetch(`${origin}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    expect(r.status).toBe(200);
    return (await r.json()) as { access_token: string; refresh_token: string };
  };
  const login = async (key: string) => ({ authorization: `Bearer ${(await authenticate(key)).access_token}` });
  const on = (i: number, path: string, headers: Record<string, string>, init: RequestInit = {}) =>
    fetch(`${origins[i % 3]}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });

  it('makes a key through the pooler (named statements once failed here) and migrates past it while serving', async () => {
    const key = await mrs('key', 'create', 'demo.main', 'admin');
    expect(key).toMatch(/^mrs_[A-Za-z0-9]+_/);
    await mrs('migrate'); // on MIGRATE_DATABASE_URL, as the README's deploy recipe does
    expect((await on(0, `${M}/work_orders`, await login(key))).status).toBe(200);
  });

  it('allows exactly the limit per key, the three processes together', async () => {
    const auth = await login(await mrs('key', 'create', 'demo.main', 'admin'));
    const statuses = await Promise.all(Array.from({ length: 90 }, (_, i) => on(i, `${M}/work_orders`, auth).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(40);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
  });

  it('pages on one process a cursor another created, while all three write', async () => {
    const auth = await login(await mrs('key', 'create', 'demo.main', 'admin'));
    const json = { ...auth, 'content-type': 'application/json' };
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        on(i, `${M}/work_orders`, json, { method: 'POST', body: JSON.stringify({ ...WORK_ORDER, department_id: 77 }) }).then((r) =>
          r.json(),
        ),
      ),
    );
    const ids = made.map((w) => (w as { id: number }).id).sort((a, b) => a - b);
    const first = await on(0, `${M}/work_orders?department_id=77&$limit=5&$orderBy=id`, auth);
    const cursor = first.headers.get('x-cursor')!;
    expect(first.headers.get('x-total')).toBe('12');
    const pages = [(await first.json()) as { id: number }[]];
    for (const [i, page] of [
      [1, 2],
      [2, 3],
    ] as const)
      pages.push((await (await on(i, `${M}/work_orders?$cursor=${cursor}&$page=${page}`, auth)).json()) as { id: number }[]);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat().map((w) => w.id)).toEqual(ids);
  });

  it("refuses a revoked key's token on every process", async () => {
    const key = await mrs('key', 'create', 'demo.main', 'admin');
    const auth = await login(key);
    for (let i = 0; i < 3; i++) expect((await on(i, `${M}/work_orders?$limit=1`, auth)).status).toBe(200);
    await mrs('key', 'revoke', 'demo.main', key.split('_')[1]!);
    // The contract's bound is 5 s; polled up to three times that, so a loaded machine does not fail it.
    let refused = [false, false, false];
    for (let tries = 0; refused.includes(false) && tries < 60; tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 250));
      refused = await Promise.all([0, 1, 2].map(async (i) => (await on(i, `${M}/work_orders?$limit=1`, auth)).status === 401));
    }
    expect(refused).toEqual([true, true, true]);
  });

  it('carries out a keyed POST sent to all three processes at once exactly once (Idempotency-Key, SPEC 10)', async () => {
    const auth = await login(await mrs('key', 'create', 'demo.main', 'admin'));
    const json = { ...auth, 'content-type': 'application/json' };
    const body = JSON.stringify({ ...WORK_ORDER, department_id: 88 });
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        [0, 1, 2].map((i) => on(i, `${M}/work_orders`, { ...json, 'idempotency-key': `pgb-${round}` }, { method: 'POST', body })),
      );
      const carriedOut = answers.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === null);
      expect(carriedOut, answers.map((r) => r.status).join(' ')).toHaveLength(1);
      for (const r of answers) expect([201, 409]).toContain(r.status);
    }
    expect((await on(0, `${M}/work_orders?department_id=88&$limit=1`, auth)).headers.get('x-total')).toBe('10');
  });

  it('serves the pages of a /bulk $linked read from different processes, each record once with its live children', async () => {
    const auth = await login(await mrs('key', 'create', 'demo.main', 'admin'));
    const json = { ...auth, 'content-type': 'application/json' };
    const post = (i: number, path: string, body: object) =>
      on(i, path, json, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => {
        expect(r.status).toBe(201);
        return (await r.json()) as { id: number };
      });
    const orders: number[] = [];
    for (let i = 0; i < 5; i++) orders.push((await post(i, `${M}/work_orders`, { ...WORK_ORDER, department_id: 66 })).id);
    const notes = new Map<number, number[]>(orders.map((wo) => [wo, []]));
    for (const [i, wo] of orders.entries())
      for (let n = 0; n < i; n++) notes.get(wo)!.push((await post(n, `${M}/notes`, { work_order_id: wo, note: `n${n}` })).id);
    // A deleted note is not linked.
    const gone = await post(2, `${M}/notes`, { work_order_id: orders[4]!, note: 'gone' });
    expect((await on(1, `${M}/notes/${gone.id}`, auth, { method: 'DELETE' })).status).toBe(204);

    type Linked = { id: number; linked: { Notes: { id: number; note: string }[] } };
    const first = await on(0, `${BASE}/bulk/maintenance/work_orders?department_id=66&$linked=Notes&$limit=2`, auth);
    expect(first.status).toBe(200);
    const cursor = first.headers.get('x-cursor')!;
    const pages = [(await first.json()) as Linked[]];
    // Page 2 resends $linked as the real clients do; page 3 asks only $cursor and $page, as the Link header gives it.
    for (const [i, qs] of [
      [1, `$cursor=${cursor}&$page=2&$linked=Notes&department_id=66`],
      [2, `$cursor=${cursor}&$page=3`],
    ] as const) {
      const r = await on(i, `${BASE}/bulk/maintenance/work_orders?${qs}`, auth);
      expect(r.status).toBe(200);
      pages.push((await r.json()) as Linked[]);
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const records = pages.flat();
    expect(records.map((r) => r.id)).toEqual(orders);
    for (const r of records) expect(r.linked.Notes.map((n) => n.id)).toEqual(notes.get(r.id));
    // Another $linked on a later page is refused on any process.
    expect((await on(1, `${BASE}/bulk/maintenance/work_orders?$cursor=${cursor}&$page=2&$linked=Files`, auth)).status).toBe(400);
  });

  it('rotates a refresh token on one process and detects its reuse on another, ending its family everywhere', async () => {
    const key = await mrs('key', 'create', 'demo.main', 'admin');
    const refresh = (i: number, refresh_token: string) =>
      on(i, `${BASE}/tokens/refresh`, { 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ refresh_token }) });
    const issued = await authenticate(key);
    const rotated = await refresh(1, issued.refresh_token);
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect((await on(2, `${M}/work_orders?$limit=1`, { authorization: `Bearer ${second.access_token}` })).status).toBe(200);
    // The used token, replayed on a third process: 404, and the family ends on every process.
    expect((await refresh(2, issued.refresh_token)).status).toBe(404);
    expect((await refresh(0, second.refresh_token)).status).toBe(404);
    // Used at once on all three: one rotation, two 404s.
    const fresh = await authenticate(key, origins[1]);
    const statuses = await Promise.all([0, 1, 2].map(async (i) => (await refresh(i, fresh.refresh_token)).status));
    expect(statuses.sort()).toEqual([200, 404, 404]);
  });
});
