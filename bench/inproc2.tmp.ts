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
const p = paths[process.argv[2]!]!;
const n = Number(process.argv[3] ?? 50000);
const reqs = Array.from({ length: 1000 }, () => new Request(B + p, { headers: h }));
const t = performance.now();
for (let i = 0; i < n; i++) { const r = await app.fetch(new Request(B + p, { headers: h })); await r.text(); }
console.log(((performance.now() - t) * 1000 / n).toFixed(1), 'us');
await service.close();
