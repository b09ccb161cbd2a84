import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, SERVE, startProcess } from '../../bench/support/processes.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';
import { freePort, pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { eventually, startReceiver, verified, type Received } from '../support/webhook-receiver.ts';

const BASE = '/v4_server/external/v1';
const M = `${BASE}/maintenance`;
const WORK_ORDER = { department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1 };

/**
 * Webhooks with three `mrs serve` on one PostgreSQL database through PgBouncer in transaction
 * mode (SPEC 9): each event delivered by one process; after processes are killed, the survivor
 * takes their webhooks over from the kept positions (at least once: an event in flight at the
 * kill may come twice, nothing is missed, order holds).
 */
describe.skipIf(!TEST_DATABASE_URL || !pgbouncerAvailable())('webhooks with three server processes through PgBouncer', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let bouncer: PgBouncer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const procs: ChildProcess[] = [];
  const origins: string[] = [];
  let env: Record<string, string>;
  let auth: Record<string, string>;
  const hooks: { id: string; secret: string; path: string }[] = [];
  const mrs = async (...args: string[]) => (await runCommand(['bin/mrs.js', ...args], { ...env, PORT: '0' })).trim();

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    bouncer = await startPgBouncer(db.url, { poolSize: 3 });
    receiver = await startReceiver();
    env = {
      DATABASE_URL: bouncer.url,
      MIGRATE_DATABASE_URL: db.url,
      PG_PREPARED_STATEMENTS: 'false',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'x'.repeat(40),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_MAX_BACKOFF_S: '1',
    };
    await mrs('tenant', 'create', 'demo.main').catch(() => {});
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    const started = await Promise.allSettled(
      ports.map((port) => startProcess(SERVE, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`, false)),
    );
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    origins.push(...ports.map((port) => `http://127.0.0.1:${port}`));
    const key = await mrs('key', 'create', 'demo.main', 'admin');
    const r = await fetch(`${origins[0]}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    auth = { authorization: `Bearer ${((await r.json()) as { access_token: string }).access_token}` };
    for (const n of [0, 1]) {
      const [id, secret] = (await mrs('webhook', 'create', 'demo.main', `${receiver.url}?n=${n}`)).split('\n');
      hooks.push({ id: id!, secret: secret!, path: `/hook?n=${n}` });
    }
  }, 90_000);
  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.on('exit', r)))));
    await receiver?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  const write = async (n: number, on: number[]) => {
    for (let i = 0; i < n; i++) {
      const origin = origins[on[i % on.length]!]!;
      const r = await fetch(`${origin}${M}/work_orders`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(WORK_ORDER),
      });
      expect(r.status).toBe(201);
    }
  };
  const feedSeqs = async (origin: string) => {
    const r = await fetch(`${origin}${M.replace('/maintenance', '')}/events?$limit=1000`, { headers: auth });
    expect(r.status).toBe(200);
    return ((await r.json()) as { seq: number }[]).map((e) => `evt_${e.seq}`);
  };
  const got = (path: string): Received[] => receiver.acked().filter((r) => r.path === path);
  const firsts = (ids: string[]) => [...new Set(ids)];

  it('with all three alive, each event reaches each webhook exactly once, in seq order, signed', async () => {
    await write(15, [0, 1, 2]);
    const feed = await feedSeqs(origins[0]!);
    expect(feed).toHaveLength(15);
    for (const h of hooks)
      await eventually(() => firsts(got(h.path).map((r) => r.id)).length >= feed.length, `${h.path} delivered`, 60_000);
    for (const h of hooks) {
      expect(got(h.path).map((r) => r.id)).toEqual(feed);
      for (const r of got(h.path)) verified(h.secret, r);
    }
    expect(receiver.received.length).toBe(receiver.acked().length);
  }, 90_000);

  it('after two processes are killed mid-delivery, the third delivers the rest: nothing missed, in order, at most the event in flight twice', async () => {
    receiver.delay(150);
    const before = receiver.acked().length;
    await write(12, [0, 1, 2]);
    await eventually(() => receiver.acked().length >= before + 4, 'deliveries under way', 60_000);
    procs[0]!.kill('SIGKILL');
    procs[1]!.kill('SIGKILL');
    await write(4, [2]);
    const feed = await feedSeqs(origins[2]!);
    expect(feed).toHaveLength(31);
    for (const h of hooks)
      await eventually(() => firsts(got(h.path).map((r) => r.id)).length >= feed.length, `${h.path} delivered after the kill`, 100_000);
    for (const h of hooks) {
      const ids = got(h.path).map((r) => r.id);
      expect(firsts(ids)).toEqual(feed);
      expect(ids.length - firsts(ids).length).toBeLessThanOrEqual(1);
      for (const r of got(h.path)) verified(h.secret, r);
    }
  }, 150_000);
});
