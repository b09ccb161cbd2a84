// temporary: in-process per-request cost of each path (app.fetch), and the floor's in-process cost
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { loadConfig } from '../server/config.ts';
import { createService } from '../server/service.ts';
const env = { ...process.env, DATA_DIR: '/tmp/dd', RATE_LIMIT_MAX: '1000000000', LOG_LEVEL: 'silent' };
const service = await createService(loadConfig(env as any));
const app = service.app;
const B = 'http://x/v4_server/external/v1';
const key = (await import('node:fs')).readFileSync('/tmp/key', 'utf8').trim();
const auth = await app.fetch(new Request(`${B}/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }) }));
const tok = ((await auth.json()) as any).access_token;
const h = { authorization: `Bearer ${tok}` };
const first = await app.fetch(new Request(`${B}/maintenance/work_orders?department_id=7&status=open`, { headers: h }));
const cursor = first.headers.get('x-cursor');
await first.text();
const paths: Record<string, string> = {
  search: '/maintenance/work_orders?department_id=7&status=open',
  page: `/maintenance/work_orders?$cursor=${cursor}&$page=3`,
  read: '/maintenance/work_orders/12345',
};
const db = new Database('/tmp/dd/demo.main.sqlite', { readonly: true });
const where = "department_id = 7 and status = 'open' and deleted = 0";
const pg1 = db.prepare(`select * from work_orders where ${where} order by id limit 10`);
const cnt = db.prepare(`select count(*) as n from work_orders where ${where}`);
const fixed = pg1.all();
const base = new Hono();
base.get('/bare', (c) => c.json(fixed));
base.get('/floor', (c) => c.json(pg1.all(), 200, { 'x-total': String((cnt.get() as any).n) }));
async function time(label: string, f: () => Promise<Response>, n: number) {
  for (let i = 0; i < 2000; i++) await (await f()).text();
  const t = performance.now();
  for (let i = 0; i < n; i++) await (await f()).text();
  console.log(label.padEnd(10), ((performance.now() - t) * 1000 / n).toFixed(1), 'us');
}
const which = process.argv.slice(2);
for (let r = 0; r < 2; r++) {
  await time('bare', () => base.fetch(new Request('http://x/bare')) as Promise<Response>, 20000);
  await time('floor', () => base.fetch(new Request('http://x/floor')) as Promise<Response>, 20000);
  for (const [k, p] of Object.entries(paths)) if (!which.length || which.includes(k)) await time(k, () => app.fetch(new Request(B + p, { headers: h })) as Promise<Response>, k === 'search' ? 5000 : 20000);
}
if (process.env.TRACE) {
  const s2 = service;
  const m = new Map(); (globalThis as any).__trace = m;
  for (const [k, p] of Object.entries(paths)) {
    m.clear();
    const n = k === 'search' ? 2000 : 5000;
    for (let i = 0; i < n; i++) await (await s2.app.fetch(new Request(B + p, { headers: h }))).text();
    console.log('==', k);
    for (const [s, [c, t]] of m) console.log((c / n).toFixed(2), 'x', (t * 1000 / c).toFixed(1), 'us', s);
  }
}
await service.close();
