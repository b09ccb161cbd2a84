/**
 * Indexes serve filtered lists: on 100,000 seeded work orders, the statement a
 * two-filter list request runs (the cursor snapshot of department_id=7&status=open) is explained
 * (EXPLAIN QUERY PLAN on SQLite, EXPLAIN after ANALYZE on PostgreSQL) and timed as a ratio to an
 * unfiltered page-1 request of the same run. SQLite, and PostgreSQL with TEST_DATABASE_URL.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { list } from '../engine/operations/list.ts';
import { valueOf } from '../engine/errors.ts';
import { parseQuery } from '../engine/query/parse.ts';
import { resolveQuery } from '../engine/query/resolve.ts';
import { fmt, medianMs, table } from './support/stats.ts';
import { benchDatabases, seededTenant } from './support/tenant.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const FILTERED = 'department_id=7&status=open';
const RUNS = 30;

/**
 * Remembers the statements run through a Kysely instance with their parameters, to explain the
 * real ones (hot statements are compiled once with placeholders, so the compiled text alone
 * does not carry the values).
 */
function recordStatements(db: Kysely<any>): CompiledQuery[] {
  const executed: CompiledQuery[] = [];
  const executor = db.getExecutor();
  const run = executor.executeQuery.bind(executor);
  executor.executeQuery = ((query: CompiledQuery) => {
    executed.push(query);
    return run(query);
  }) as typeof executor.executeQuery;
  return executed;
}

export async function run(): Promise<void> {
  for (const kind of benchDatabases()) {
    console.log(`\n${kind}: ${ROWS} work orders`);
    const seeded = await seededTenant(kind, ROWS);
    try {
      const tenant = seeded.tenant;
      const executed = recordStatements(tenant.db);
      const resource = seeded.registry.get('work_orders')!;
      const settings = { ttlMs: 900_000, now: Date.now };
      const ctx = { tenant, registry: seeded.registry, cursors: settings };
      const page1 = (qs: string) => () => list(ctx, resource, valueOf(resolveQuery(parseQuery(new URLSearchParams(qs)), resource)));

      // The statement that reads the work orders when the filtered list is asked for.
      executed.length = 0;
      const first = await page1(FILTERED)();
      const snapshot = executed
        .filter((c) => /"work_orders"/.test(c.sql) && /department_id/.test(c.sql))
        .sort((a, b) => b.sql.length - a.sql.length)[0]!;
      const explain = kind === 'sqlite' ? 'explain query plan ' : 'explain ';
      const plan = await tenant.db.executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(explain + snapshot.sql, [...snapshot.parameters]),
      );
      const lines = plan.rows.map((r) => String(r.detail ?? r['QUERY PLAN']));
      // The plan also covers the cursor's own CTEs; the lines that read work_orders are the point.
      const reading = lines.filter((l) => /work_orders|Index Cond|Recheck Cond|Filter: \(NOT deleted\)/.test(l));
      console.log(`plan of the cursor snapshot of ${FILTERED} (${first.total} matches), lines reading work_orders (of ${lines.length}):`);
      for (const l of reading) console.log(`  ${l}`);
      const indexed = lines.some((l) => /work_orders_\w+_idx/.test(l));
      console.log(`served by an index: ${indexed ? 'yes' : 'NO'}`);

      const filteredMs = await medianMs(RUNS, page1(FILTERED));
      const unfilteredMs = await medianMs(RUNS, page1(''));
      console.log(
        table([
          ['list request (page 1, new cursor)', 'matches', 'median ms'],
          [FILTERED, first.total, fmt(filteredMs, 3)],
          ['(no filter)', ROWS, fmt(unfilteredMs, 3)],
          ['ratio filtered / unfiltered', '', fmt(filteredMs / unfilteredMs, 3)],
        ]),
      );
    } finally {
      await seeded.drop();
    }
  }
}
