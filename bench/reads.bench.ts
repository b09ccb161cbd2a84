/**
 * What the real clients read (SPEC 14), as ratios measured in the same run, on SQLite and, with
 * TEST_DATABASE_URL, PostgreSQL:
 * - a `/bulk` page of 50 work orders with `$linked=Notes` (5 notes each) against the same page
 *   without `$linked` (target: the linked page at least 0.5 of the plain page's speed);
 * - the same page with `$fields` of two fields against the whole record (target: at least as fast).
 * Each call is a new search (a cursor and its page 1), as a client's first page is.
 */
import { now, toRow } from '../engine/records.ts';
import { list } from '../engine/operations/list.ts';
import { valueOf } from '../engine/errors.ts';
import { parseQuery } from '../engine/query/parse.ts';
import { resolveQuery } from '../engine/query/resolve.ts';
import { fmt, interleavedMedianMs, table } from './support/stats.ts';
import { benchDatabases, seededTenant } from './support/tenant.ts';

const ROWS = Number(process.env.BENCH_ROWS_READS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS_READS ?? 200);
const NOTES_PER = 5;

export async function run(): Promise<void> {
  for (const kind of benchDatabases()) {
    console.log(`\n${kind}: ${ROWS} work orders, ${NOTES_PER} notes on each of the first 2,000`);
    const { tenant, registry, drop } = await seededTenant(kind, ROWS);
    try {
      const notes = registry.get('notes')!;
      const t = now();
      const rows = [];
      for (let wo = 1; wo <= 2000; wo++)
        for (let n = 0; n < NOTES_PER; n++)
          rows.push(
            toRow(notes, tenant.flavour, {
              created: t.date,
              updated: t.timestamp,
              deleted: false,
              work_order_id: wo,
              note: `note ${n} of ${wo}`,
            }),
          );
      for (let i = 0; i < rows.length; i += 500)
        await tenant.db
          .insertInto('notes')
          .values(rows.slice(i, i + 500))
          .execute();
      // Planner statistics of the notes too, as autovacuum keeps them on a server: the steady state, not the first minute.
      await tenant.catalog.bulkLoad.after(tenant, ['notes']);
      const resource = registry.get('work_orders')!;
      const ctx = { tenant, registry, cursors: { ttlMs: 3_900_000, now: Date.now } };
      const page = (qs: string) => {
        const query = valueOf(resolveQuery(parseQuery(new URLSearchParams(qs)), resource));
        return () => list(ctx, resource, query);
      };
      const base = 'id:lte=2000&$limit=50';
      const table_: (string | number)[][] = [['page of 50', 'plain ms', 'variant ms', 'speed ratio (plain ms / variant ms)', 'target']];
      for (const [label, qs, target] of [
        ['$linked=Notes (5 each)', `${base}&$linked=Notes`, '>= 0.5'],
        ['$fields=priority,status', `${base}&$fields=priority,status`, '>= 1'],
      ] as const) {
        const [plainMs, variantMs] = await interleavedMedianMs(RUNS, page(base), page(qs));
        table_.push([label, fmt(plainMs), fmt(variantMs), fmt(plainMs / variantMs), target]);
      }
      console.log(table(table_));
    } finally {
      await drop();
    }
  }
}
