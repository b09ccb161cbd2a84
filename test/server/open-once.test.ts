import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { feedWatcher } from '../../engine/events/feed-watcher.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { usingTenant } from '../../engine/tenant-use.ts';
import { openOnce } from '../../server/tenants/open-once.ts';

const IDLE_MS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dbs: Kysely<any>[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.destroy();
});

/** openOnce over in-memory tenants, noting each release. */
function tenants(options: { idleMs?: number; maxOpen?: number } = { idleMs: IDLE_MS }) {
  const released: string[] = [];
  const once = openOnce(
    async (clientDb) => {
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
      dbs.push(db);
      return tenantDb(db, { key: clientDb });
    },
    { ...options, release: async (clientDb) => void released.push(clientDb) },
  );
  return { ...once, released };
}

async function until(check: () => boolean, ms = 3000) {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

it('an idle tenant nobody holds is released', async () => {
  const o = tenants();
  try {
    await o.load('a.main');
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['a.main']);
    expect(o.open.has('a.main')).toBe(false);
  } finally {
    o.stop();
  }
});

it('a lease held longer than the idle time keeps its tenant open, which is released only after the lease ends', async () => {
  const o = tenants();
  try {
    const lease = await o.acquire('a.main');
    await sleep(IDLE_MS * 6); // several sweeps pass while it is held
    expect(o.released).toEqual([]);
    lease.release();
    lease.release(); // a second release changes nothing
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['a.main']);
  } finally {
    o.stop();
  }
});

it('a lease whose opening failed holds nothing, and the next one opens the tenant afresh', async () => {
  let fail = true;
  const once = openOnce(
    async (clientDb) => {
      if (fail) throw new Error('no');
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
      dbs.push(db);
      return tenantDb(db, { key: clientDb });
    },
    { maxOpen: 1 },
  );
  await expect(once.acquire('a.main')).rejects.toThrow('no');
  fail = false;
  const a = await once.acquire('a.main');
  a.release();
  (await once.acquire('b.main')).release(); // a, held by nobody, makes room
  expect([...once.open.keys()]).toEqual(['b.main']);
});

it('over TENANT_OPEN_MAX the least recently used tenant nobody holds is released, never one leased, worked on or followed', async () => {
  const o = tenants({ maxOpen: 2 });
  try {
    const a = await o.load('a.main');
    await o.load('b.main');
    await o.load('a.main'); // b is now the least recently used
    await o.load('c.main');
    expect(o.released).toEqual(['b.main']);
    expect([...o.open.keys()].sort()).toEqual(['a.main', 'c.main']);
    // a runs work and c is followed: the only one to release is the one just opened, once let go.
    let end!: () => void;
    const work = usingTenant(a, () => new Promise<void>((r) => (end = r)));
    const unfollow = feedWatcher(await o.load('c.main')).listen(() => {});
    const d = await o.acquire('d.main');
    expect(o.released).toEqual(['b.main']); // three open while d is held
    d.release();
    expect(o.released).toEqual(['b.main', 'd.main']);
    expect([...o.open.keys()].sort()).toEqual(['a.main', 'c.main']);
    end();
    await work;
    (await o.acquire('e.main')).release(); // a, its work ended, is now the least recently used free one
    expect(o.released[2]).toBe('a.main');
    unfollow();
    (await o.acquire('b.main')).release(); // opened again on its next use; c, no longer followed, goes
    expect(o.released[3]).toBe('c.main');
    expect([...o.open.keys()].sort()).toEqual(['b.main', 'e.main']);
  } finally {
    o.stop();
  }
});

it('tenants over the cap, all held, are released as their leases end', async () => {
  const o = tenants({ maxOpen: 1 });
  try {
    const a = await o.acquire('a.main');
    const b = await o.acquire('b.main');
    expect(o.released).toEqual([]);
    a.release();
    expect(o.released).toEqual(['a.main']);
    b.release();
    expect([...o.open.keys()]).toEqual(['b.main']);
  } finally {
    o.stop();
  }
});

it('many callers at once on more tenants than the cap: no tenant is released while held, and the cap holds after', async () => {
  const holding = new Map<string, number>();
  const underUse: string[] = [];
  const once = openOnce(
    async (clientDb) => {
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
      dbs.push(db);
      return tenantDb(db, { key: clientDb });
    },
    { maxOpen: 3, release: async (clientDb) => void ((holding.get(clientDb) ?? 0) > 0 && underUse.push(clientDb)) },
  );
  await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      const clientDb = `t${(i * 7) % 11}.main`;
      await sleep(i % 13); // arriving over time, while others hold theirs
      const lease = await once.acquire(clientDb);
      holding.set(clientDb, (holding.get(clientDb) ?? 0) + 1);
      try {
        await sleep(i % 5);
        await sleep(0);
      } finally {
        holding.set(clientDb, holding.get(clientDb)! - 1);
        lease.release();
      }
    }),
  );
  expect(underUse).toEqual([]);
  expect(once.open.size).toBeLessThanOrEqual(3);
});
