import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../../test/support/pg.ts';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { fromFlexible } from './flexible.ts';
import { createLimiter, rateLimitHeaders, type LimiterOptions, type RateLimiter } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'mrs-rl-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => Promise<Pick<LimiterOptions, 'store' | 'dataDir' | 'pool'>>][] = [
  ['memory', async () => ({ store: 'memory' })],
  ['sqlite database', async () => ({ store: 'database', dataDir: dir })],
];
if (TEST_DATABASE_URL)
  stores.push([
    'postgres database',
    async () => {
      const fresh = await freshPostgresDatabase();
      const pool = testPool(fresh.url, 10);
      cleanups.push(async () => {
        await pool.end();
        await fresh.drop();
      });
      return { store: 'database', pool };
    },
  ]);

describe.each(stores)('rate limiter, %s store', (_name, where) => {
  let n = 0;
  const limiter = async (max: number, windowS: number): Promise<RateLimiter> =>
    createLimiter({ name: `t${++n}`, max, windowS, ...(await where()) });

  it('counts calls in a window that starts with the first call', async () => {
    const rl = await limiter(3, 60);
    const states = [];
    for (let i = 0; i < 4; i++) states.push(await rl.hit('k'));
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(states.map((s) => s.remaining)).toEqual([2, 1, 0, 0]);
    expect(states.every((s) => s.resetS >= 59 && s.resetS <= 60)).toBe(true);
    expect((await rl.hit('other')).remaining).toBe(2); // windows are per key
  });

  it('with N calls left and more sent at once, exactly N succeed', async () => {
    const rl = await limiter(100, 60);
    for (let i = 0; i < 70; i++) await rl.hit('k');
    const all = await Promise.all(Array.from({ length: 100 }, () => rl.hit('k')));
    expect(all.filter((s) => s.allowed)).toHaveLength(30);
  });

  it('starts a new window once the old one has ended', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const rl = await limiter(2, 10);
      await rl.hit('k');
      await rl.hit('k');
      expect((await rl.hit('k')).allowed).toBe(false);
      vi.setSystemTime(Date.now() + 10_001);
      const fresh = await rl.hit('k');
      expect(fresh.allowed).toBe(true);
      expect(fresh.remaining).toBe(1);
      expect(fresh.resetS).toBe(10);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('rate-limit headers', () => {
  it('has the X-RateLimit trio, the draft pair, and Retry-After on refusal', () => {
    const ok = rateLimitHeaders({ allowed: true, limit: 1000, remaining: 998, resetS: 3594, windowS: 3600 });
    expect(ok).toEqual({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '998',
      'x-ratelimit-reset': '3594',
      'ratelimit-policy': '"default";q=1000;w=3600',
      ratelimit: '"default";r=998;t=3594',
    });
    const refused = rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetS: 42, windowS: 60 });
    expect(refused['retry-after']).toBe('42');
    expect(refused['x-ratelimit-reset']).toBe('42');
  });
});

describe('a database store, hits arriving together', () => {
  const spied = (max: number) => {
    const rl = new RateLimiterMemory({ points: max, duration: 60 });
    const consume = vi.spyOn(rl, 'consume');
    return { limiter: fromFlexible(rl, max, 60, async () => {}), consume };
  };

  it('go to the store as one consume per key, each hit taking its own place in the window', async () => {
    const { limiter, consume } = spied(7);
    const states = await Promise.all([...Array.from({ length: 10 }, () => limiter.hit('a')), limiter.hit('b')]);
    expect(consume.mock.calls.map((c) => c.slice(0, 2))).toEqual([
      ['a', 10],
      ['b', 1],
    ]);
    expect(states.slice(0, 10).map((s) => [s.allowed, s.remaining])).toEqual([
      [true, 6],
      [true, 5],
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
      [false, 0],
    ]);
    expect(states[10]).toMatchObject({ allowed: true, remaining: 6 });
    // The refused hits counted: the next one is refused too, and says so alone.
    expect(await limiter.hit('a')).toMatchObject({ allowed: false, remaining: 0 });
    expect(consume).toHaveBeenLastCalledWith('a', 1);
  });

  it('a key has one consume in flight: the hits of later turns wait for it and go together in the next', async () => {
    const { limiter, consume } = spied(100);
    // The first consume answers only once the later hits are in (a store a round trip away).
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const real = consume.getMockImplementation() ?? RateLimiterMemory.prototype.consume;
    consume.mockImplementationOnce(async function (this: RateLimiterMemory, ...args) {
      await gate;
      return real.apply(this, args);
    });
    const first = limiter.hit('a');
    const later: unknown[] = [];
    // Hits of several later turns, while the first consume has not answered.
    for (let turn = 0; turn < 5; turn++) {
      await new Promise((r) => setImmediate(r));
      later.push(limiter.hit('a'), limiter.hit('a'));
    }
    open();
    const states = (await Promise.all([first, ...later])) as { remaining: number }[];
    expect(consume.mock.calls.map((c) => c.slice(0, 2))).toEqual([
      ['a', 1],
      ['a', 10],
    ]);
    expect(states.map((s) => s.remaining)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89]);
  });

  it('all fail when the store fails, and the next turn starts afresh', async () => {
    const { limiter, consume } = spied(5);
    consume.mockRejectedValueOnce(new Error('store down'));
    const failed = await Promise.allSettled([limiter.hit('a'), limiter.hit('a')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await limiter.hit('a')).toMatchObject({ allowed: true, remaining: 4 });
  });
});
