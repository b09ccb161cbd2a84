import Database from 'better-sqlite3';
import { openSqlite } from '../server/tenants/sqlite.ts';
import { loadRecord } from '../engine/operations/context.ts';
import { sqliteDialect } from '../engine/dialects/sqlite.ts';
import { createRegistry } from '../engine/registry.ts';
import { loadResources } from '../server/load-resources.ts';
const db = openSqlite('/tmp/dd/demo.main.sqlite');
const raw = new Database('/tmp/dd/demo.main.sqlite');
const st = raw.prepare('select * from "work_orders" where "id" = ?');
const reg = createRegistry(await loadResources());
const res = reg.get('work_orders')!;
const ctx: any = { tenant: { db, dialect: sqliteDialect }, registry: reg };
async function t(label: string, f: () => unknown, n = 200000) { for (let i = 0; i < 20000; i++) await f(); const s = performance.now(); for (let i = 0; i < n; i++) await f(); console.log(label.padEnd(14), ((performance.now() - s) * 1000 / n).toFixed(2), 'us'); }
for (let r = 0; r < 2; r++) {
  await t('raw stmt.all', () => st.all(12345));
  await t('raw stmt.get', () => st.get(12345));
  await t('kysely exec', () => db.executeQuery({ sql: 'select * from "work_orders" where "id" = ?', parameters: [12345], query: { kind: 'SelectQueryNode' } as any, queryId: { queryId: 'x' } as any }));
  await t('loadRecord', () => loadRecord(db, ctx, res, 12345));
}
