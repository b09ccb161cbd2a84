/**
 * The cases of bench/ab-cpu.ts and bench/ab-pairs.ts: the service of the checkout `dir` on fresh
 * data (2,000 work orders, ten departments, a third closed), and each case as one request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CASES = ['create', 'patch', 'read', 'search', 'page'] as const;
export type Case = (typeof CASES)[number];

export interface CpuSide {
  readonly cases: Record<Case, () => Promise<unknown>>;
  /** `n` requests of `one` from 10 concurrent callers: the process's CPU microseconds per request. */
  load(one: () => Promise<unknown>, n: number): Promise<number>;
  close(): Promise<void>;
}

/** AB_DATABASE=postgres: a fresh database of TEST_DATABASE_URL's server, dropped by close(). */
export async function cpuSide(dir: string): Promise<CpuSide> {
  const { loadConfig } = await import(join(dir, 'server/config.ts'));
  const { createService, ensureDemoTenant } = await import(join(dir, 'server/service.ts'));
  const { login } = await import(join(dir, 'test/support/auth.ts'));
  const { freshPostgresDatabase } = await import(join(dir, 'test/support/pg.ts'));

  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-ab-cpu-'));
  const pgdb = process.env.AB_DATABASE === 'postgres' ? await freshPostgresDatabase() : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: pgdb?.url ?? '',
    RATE_LIMIT_MAX: '1000000000',
    AUTH_RATE_LIMIT_MAX: '1000000000',
  });
  const service = await createService(config, { onUnexpectedError: () => {} });
  await ensureDemoTenant(service.tenants);
  const { token } = await login(service);
  const BASE = '/v4_server/external/v1';
  const M = `${BASE}/maintenance`;

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; cursor: string | null }> {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const res = await service.app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { status: res.status, body: text ? JSON.parse(text) : undefined, cursor: res.headers.get('x-cursor') };
  }

  const order = { department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1, description: 'ab' };
  const RECORDS = 2000;
  // Records to read and search: ten departments, a third of them closed.
  for (let i = 0; i < RECORDS; i++)
    await call('POST', `${M}/work_orders`, { ...order, department_id: i % 10, status: i % 3 ? 'open' : 'closed' });
  const SEARCH = `${M}/work_orders?department_id=7&status=open`;
  const cursor = (await call('GET', SEARCH)).cursor;
  const atRandom = () => 1 + Math.floor(Math.random() * RECORDS);
  return {
    cases: {
      create: () => call('POST', `${M}/work_orders`, order),
      // A record at random, as the HTTP benchmark's PATCHes: ten callers on one row measure PostgreSQL's lock waits.
      patch: () => call('PATCH', `${M}/work_orders/${atRandom()}`, { priority: 1 + Math.floor(Math.random() * 5) }),
      read: () => call('GET', `${M}/work_orders/${atRandom()}`),
      search: () => call('GET', SEARCH),
      page: () => call('GET', `${SEARCH}&$cursor=${cursor}&$page=3`),
    },
    async load(one, n) {
      let left = n;
      const before = process.cpuUsage();
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (left-- > 0) await one();
        }),
      );
      const used = process.cpuUsage(before);
      return (used.user + used.system) / n;
    },
    async close() {
      await service.close();
      await pgdb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
