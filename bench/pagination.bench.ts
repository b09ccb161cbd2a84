/**
 * Pagination costs, measured against baselines of the same run:
 * - cursor creation as a ratio to SELECT COUNT(*) of the same filter (run in turns), at ~5,000 and
 *   1,000,000 matches;
 * - serving page 20,000 of a 1,000,000-record cursor as a ratio to page 2;
 * on SQLite and, with TEST_DATABASE_URL, PostgreSQL. HTTP throughput is in http-list.bench.ts.
 */
import { cursorsFor, searchKeyOf } from '../engine/cursor/index.ts';
import { list } from '../engine/operations/list.ts';
import { canonicalize } from '../engine/query/canonical.ts';
import { valueOf } from '../engine/errors.ts';
import { parseQuery } from '../engine/query/parse.ts';
import { resolveQuery } from '../engine/query/resolve.ts';
import { searchOf } from '../engine/sql/search-sql.ts';
import { compileWhere } from '../engine/sql/where.ts';
import { fmt, interleavedMedianMs, table } from './support/stats.ts';
import { benchDatabases, seededTenant } from './support/tenant.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

export async function run(): Promise<void> {
  for (const kind of benchDatabases()) {
    console.log(`\n${kind}: ${ROWS} work orders`);
    const { tenant, registry, drop } = await seededTenant(kind, ROWS);
    try {
      const resource = registry.get('work_orders')!;
      const settings = { ttlMs: 900_000, now: Date.now };
      const cursors = cursorsFor(tenant, settings);
      const ctx = { tenant, registry, cursors: settings };
      const resolved = (qs: string) => valueOf(resolveQuery(parseQuery(new URLSearchParams(qs)), resource));
      const where = (q: ReturnType<typeof resolved>) => compileWhere(q.filters, tenant.flavour, { includeDeleted: q.deleted });
      const rows: (string | number)[][] = [
        ['search', 'matches', 'COUNT(*) ms', 'cursor creation ms', 'ratio', 'target', 'first later page ms', 'ratio'],
      ];
      for (const [label, qs] of [
        ['~5,000 matches', 'department_id=7&work_order_type_id:lte=5'],
        ['all rows', ''],
        ['all rows by priority', '$orderBy=priority'],
      ] as const) {
        const q = resolved(qs);
        const count = async () =>
          Number(
            (
              await tenant.db
                .selectFrom(resource.name)
                .where(where(q))
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const matches = await count();
        const search = searchOf(resource, q, undefined);
        const canonical = canonicalize(q);
        const runs = matches > 100_000 ? 5 : 25;
        // In turns, so the machine's drift during the runs touches both sides of the ratio alike.
        const [countMs, createMs] = await interleavedMedianMs(runs, count, () =>
          // As a search creates it: page 1's records come in the same statement.
          cursors.create({
            search,
            query: q,
            canonical,
            searchKey: searchKeyOf(search, canonical),
            binding: { collection: resource.name, scope: '', owner: '' },
          }),
        );
        // A new search of page 1 is lazy (engine/cursor/lazy.ts): its first later page makes the ids.
        const laterMs: number[] = [];
        for (let i = 0; i < Math.min(runs, 7); i++) {
          const made = await list(ctx, resource, resolved(qs ? `${qs}&$limit=50` : '$limit=50'));
          const start = performance.now();
          await list(ctx, resource, resolved(`$cursor=${made.cursor}&$page=2`));
          laterMs.push(performance.now() - start);
        }
        const laterMedian = [...laterMs].sort((a, b) => a - b)[laterMs.length >> 1]!;
        rows.push([
          label,
          matches,
          fmt(countMs),
          fmt(createMs),
          fmt(createMs / countMs),
          kind === 'sqlite' ? '<= 4' : '<= 3',
          fmt(laterMedian),
          fmt(laterMedian / countMs),
        ]);
      }
      console.log(table(rows));

      const first = await list(ctx, resource, resolved('$limit=50'));
      const lastPage = Math.ceil(first.total / 50);
      const deep = Math.min(20_000, lastPage);
      const page = (n: number) => () => list(ctx, resource, resolved(`$cursor=${first.cursor}&$page=${n}`));
      const [p2, pDeep] = await interleavedMedianMs(200, page(2), page(deep));
      console.log(
        table([
          ['cursor of', 'page 2 ms', `page ${deep} ms`, 'ratio', 'target'],
          [first.total, fmt(p2, 3), fmt(pDeep, 3), fmt(pDeep / p2), '<= 1.2'],
        ]),
      );
    } finally {
      await drop();
    }
  }
}
