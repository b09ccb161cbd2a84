import Database from 'better-sqlite3';
import { toRecord } from '../engine/records.ts';
import { sqliteDialect } from '../engine/dialects/sqlite.ts';
import { createRegistry } from '../engine/registry.ts';
import { loadResources } from '../server/load-resources.ts';
const raw = new Database('/tmp/dd/demo.main.sqlite', { readonly: true });
const rows = raw.prepare('select * from work_orders where id between 5000 and 5009').all() as any[];
const reg = createRegistry(await loadResources());
const res = reg.get('work_orders')!;
function t(label: string, f: () => unknown, n = 300000) { for (let i = 0; i < 30000; i++) f(); const s = performance.now(); for (let i = 0; i < n; i++) f(); console.log(label.padEnd(14), ((performance.now() - s) * 1000 / n).toFixed(2), 'us'); }
const plan = res.fieldNames.map((n) => [n, res.fields[n]!.kind] as const);
function toRecord2(row: any) { const out: any = {}; for (const [n, k] of plan) out[n] = sqliteDialect.decode(k, row[n]); return out; }
for (let r = 0; r < 2; r++) {
  t('toRecord x10', () => rows.map((row) => toRecord(res, sqliteDialect, row)));
  t('plan x10', () => rows.map(toRecord2));
  t('stringify', () => JSON.stringify(rows));
}
