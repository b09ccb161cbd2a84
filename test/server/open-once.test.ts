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
function tenants(options: { idleMs?: number; maxOpen?: number; holdMs?: number } = { idleMs: IDLE_MS }) {
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

it('an idle tenant with nothing running on it is released', async () => {
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

it('a request running longer than the idle time keeps its tenant open, which is released only after it ends', async () => {
  const o = tenants();
  try {
    const t: TenantDb = await o.load('a.main');
    let end!: () => void;
    const request = usingTenant(t, () => new Promise<void>((r) => (end = r)));
    await sleep(IDLE_MS * 6); // several sweeps pass while it runs
    expect(o.released).toEqual([]);
    expect(o.open.has('a.main')).toBe(true);
    end();
    await request;
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['a.main']);
  } finally {
    o.stop();
  }
});

it('a failed request counts as ended', async () => {
  const o = tenants();
  try {
    const t = await o.load('a.main');
    await expect(usingTenant(t, async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    await until(() => o.released.length === 1);
  } finally {
    o.stop();
  }
});

it('over TENANT_OPEN_MAX the least recently used idle tenant is released, never one with a request running or a stream following it', async () => {
  const o = tenants({ maxOpen: 2, holdMs: 0 });
  try {
    const a = await o.load('a.main');
    await o.load('b.main');
    await o.load('a.main'); // b is now the least recently used
    await o.load('c.main');
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['b.main']);
    expect([...o.open.keys()].sort()).toEqual(['a.main', 'c.main']);
    // a runs a request and c is followed: the only idle one to release is the one just opened.
    let end!: () => void;
    const request = usingTenant(a, () => new Promise<void>((r) => (end = r)));
    const unfollow = feedWatcher(await o.load('c.main')).listen(() => {});
    await o.load('d.main');
    await until(() => o.released.length === 2);
    await sleep(100);
    expect(o.released).toEqual(['b.main', 'd.main']);
    expect([...o.open.keys()].sort()).toEqual(['a.main', 'c.main']);
    end();
    await request;
    await o.load('e.main'); // a, its request ended, is now the least recently used idle one
    await until(() => o.released.length === 3);
    expect(o.released[2]).toBe('a.main');
    unfollow();
    await o.load('b.main'); // opened again on its next use; c, no longer followed, goes
    await until(() => o.released.length === 4);
    expect(o.released[3]).toBe('c.main');
    expect([...o.open.keys()].sort()).toEqual(['b.main', 'e.main']);
  } finally {
    o.stop();
  }
});

it('a tenant asked for within holdMs is not released for the cap', async () => {
  const o = tenants({ maxOpen: 1, holdMs: 200 });
  try {
    await o.load('a.main');
    await o.load('b.main');
    await sleep(50);
    expect(o.released).toEqual([]);
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['a.main']);
  } finally {
    o.stop();
  }
});

it('work on a tenant that ended within holdMs keeps it open for the cap: the next piece may be on its way', async () => {
  const o = tenants({ maxOpen: 1, holdMs: 150 });
  try {
    const a = await o.load('a.main');
    await sleep(200); // asked for long ago
    await usingTenant(a, async () => {});
    await o.load('b.main');
    await sleep(50);
    expect(o.released).toEqual([]);
    await until(() => o.released.length === 1);
    expect(o.released).toEqual(['a.main']);
  } finally {
    o.stop();
  }
});
