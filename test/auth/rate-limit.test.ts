import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../server/rate-limit/index.ts';
import { AUTHENTICATE } from '../support/auth.ts';
import { describeEachDatabase, M, startHarness } from '../support/harness.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../support/pg.ts';
import { workOrder } from '../support/rows.ts';

const limitEnv = { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_S: '3600' };
const rl = (r: { headers: Headers }) => ({
  limit: r.headers.get('x-ratelimit-limit'),
  remaining: r.headers.get('x-ratelimit-remaining'),
  reset: Number(r.headers.get('x-ratelimit-reset')),
  policy: r.headers.get('ratelimit-policy'),
  draft: r.headers.get('ratelimit'),
});

afterEach(() => vi.useRealTimers());

describeEachDatabase(
  'rate limiting per API key',
  (h) => {
    it('answers the window on every call, then 429 with Retry-After, and the refused call does nothing', async () => {
      const { token } = await h().login();
      const as = h().as(token);
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push(rl(await as.get(`${M}/work_orders`)));
      // A 404 after the limiter counts and carries the headers too.
      const missing = await as.get(`${M}/work_orders/999999`);
      expect(missing.status).toBe(404);
      seen.push(rl(missing));
      expect(seen.map((s) => s.remaining)).toEqual(['4', '3', '2', '1', '0']);
      for (const s of seen) {
        expect(s.limit).toBe('5');
        expect(s.reset).toBeGreaterThan(3590);
        expect(s.reset).toBeLessThanOrEqual(3600);
        expect(s.policy).toBe('"default";q=5;w=3600');
        expect(s.draft).toBe(`"default";r=${s.remaining};t=${s.reset}`);
      }
      const refused = await as.post(`${M}/work_orders`, workOrder({ department_id: 4242 }));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.headers.get('retry-after')).toBe(refused.headers.get('x-ratelimit-reset'));
      expect(rl(refused).remaining).toBe('0');
      // Another key sees nothing was created.
      const other = await h().login();
      const check = await h().as(other.token).get(`${M}/work_orders?department_id=4242`);
      expect(check.status).toBe(200);
      expect(check.body).toEqual([]);
    });

    it('401 comes before 429 and costs nothing', async () => {
      const { token } = await h().login();
      for (let i = 0; i < 3; i++) expect((await h().as(null).get(`${M}/work_orders`)).status).toBe(401);
      expect(rl(await h().as(token).get(`${M}/work_orders`)).remaining).toBe('4');
    });

    it('starts a new window when the old one ends', async () => {
      const started = await startHarness(h().db, { env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_S: '60' } });
      try {
        const as = started.harness;
        vi.useFakeTimers({ toFake: ['Date'] });
        for (let i = 0; i < 5; i++) await as.get(`${M}/work_orders`);
        const refused = await as.get(`${M}/work_orders`);
        expect(refused.status).toBe(429);
        vi.setSystemTime(Date.now() + 60_001);
        const fresh = await as.get(`${M}/work_orders`);
        expect(fresh.status).toBe(200);
        expect(rl(fresh).remaining).toBe('4');
        expect(rl(fresh).reset).toBe(60);
      } finally {
        vi.useRealTimers();
        await started.stop();
      }
    });

    it('with 30 calls left, 100 sent at once give exactly 30 successes', async () => {
      const started = await startHarness(h().db, { env: { RATE_LIMIT_MAX: '40' } });
      try {
        const { token } = await started.harness.login();
        const as = started.harness.as(token);
        for (let i = 0; i < 10; i++) await as.get(`${M}/work_orders`);
        const all = await Promise.all(Array.from({ length: 100 }, () => as.get(`${M}/work_orders`)));
        expect(all.filter((r) => r.status === 200)).toHaveLength(30);
        expect(all.filter((r) => r.status === 429)).toHaveLength(70);
      } finally {
        await started.stop();
      }
    });

    it('limits /authenticate per client address with the same headers', async () => {
      const started = await startHarness(h().db, { env: { AUTH_RATE_LIMIT_MAX: '3' } });
      try {
        const bad = { api_key: 'mrs_x_y', client_db: 'demo.main', username: 'admin' };
        // The harness logged in once already: two calls left.
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await started.harness.request('POST', AUTHENTICATE, { body: bad, token: null }));
        expect(answers.map((a) => a.status)).toEqual([401, 401, 429]);
        expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
        expect(answers[2]!.headers.get('retry-after')).toBe(answers[2]!.headers.get('x-ratelimit-reset'));
        expect(answers[0]!.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
        // /maintenance calls are limited per key, not by this.
        expect((await started.harness.get(`${M}/work_orders`)).status).toBe(200);
      } finally {
        await started.stop();
      }
    });
  },
  { env: limitEnv },
);

describeEachDatabase(
  'rate limiting shared by server processes on one database',
  (h) => {
    it('two processes together allow exactly the limit per key', async () => {
      const s = h().service.config;
      const second = await startHarness(h().db, {
        env: { RATE_LIMIT_MAX: '10', RATE_LIMIT_STORE: 'database' },
        reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl },
      });
      try {
        const { token } = await h().login();
        const a = h().as(token);
        const b = second.harness.as(token);
        const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).get(`${M}/work_orders`)));
        expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
        expect(second.harness.service.limiters.store).toBe('database');
      } finally {
        await second.stop(true);
      }
    });
  },
  { env: { RATE_LIMIT_MAX: '10', RATE_LIMIT_STORE: 'database' } },
);

describe.skipIf(!TEST_DATABASE_URL)('rate limiting: the PostgreSQL store', () => {
  it('keeps its windows in an unlogged table, switching over a logged one made by an earlier version', async () => {
    const fresh = await freshPostgresDatabase();
    const pool = testPool(fresh.url);
    try {
      // The table as rate-limiter-flexible creates it (logged), holding a window in progress.
      await pool.query(
        'create table public.mrs_rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint)',
      );
      await pool.query(`insert into public.mrs_rate_limits values ('api:alice', 2, $1)`, [Date.now() + 3_600_000]);
      const limiter = await createLimiter({ name: 'api', max: 5, windowS: 3600, store: 'database', pool });
      const persistence = await pool.query(`select relpersistence from pg_class where oid = 'public.mrs_rate_limits'::regclass`);
      expect(persistence.rows[0].relpersistence).toBe('u');
      // The window in progress carries on: two calls spent, this is the third.
      const state = await limiter.hit('alice');
      expect(state.remaining).toBe(2);
      await limiter.close();
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });
});
