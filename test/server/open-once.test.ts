import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { usingTenant } from '../../engine/tenant-use.ts';
import { openOnce } from '../../server/tenants/open-once.ts';

const IDLE_MS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dbs: Kysely<any>[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.destroy();
});

/** openOnce over one in-memory tenant, noting each release. */
function tenants() {
  const released: string[] = [];
  const once = openOnce(
    async (clientDb) => {
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
      dbs.push(db);
      return tenantDb(db, { key: clientDb });
    },
    { idleMs: IDLE_MS, release: async (clientDb) => void released.push(clientDb) },
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
