/**
 * New searches of three sizes: about 500, about 5,000 and every one of 100,000 work
 * orders (the unfiltered list, the first request of most clients), each in id order and in
 * another order, against a floor doing the same filter's page (in the same order) and its
 * COUNT in the same run, on SQLite and (with TEST_DATABASE_URL) PostgreSQL. Also the bytes each
 * new search adds to the cursor store (the store's size before and after a case, over the
 * cursors the case made). Servers are pinned to CPU 0; BENCH_SECONDS sets each run's length.
 * The floors run before and after the engine's cases; ratios use their mean. Then the smallest
 * search again after AFTER_WRITES creates through the server (outside its matches): a search
 * must not grow dearer with the writes since the last vacuum (each write leaves its event, and
 * on PostgreSQL a numbered event's dead version). BENCH_PORT sets the ports (SQLite's server,
 * PostgreSQL's 10 above; each baseline one above its server).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { load, type LoadResult } from './support/load.ts';
import { SERVE, startProcess } from './support/processes.ts';
import { onEachDatabase, withCleanup, type BenchDatabase } from './support/databases.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { createWorkOrders } from './support/demo.ts';
import { fmt, table } from './support/stats.ts';

const M = '/v4_server/external/v1/maintenance';

/** The searches: their query string and the same condition as SQL (SQLite's booleans). */
const SEARCHES = {
  s500: { query: 'department_id=7&status=open', where: "department_id = 7 and status = 'open' and deleted = 0" },
  s5000: { query: 'department_id=3&department_id=4&department_id=5', where: 'department_id in (3, 4, 5) and deleted = 0' },
  all: { query: '', where: 'deleted = 0' },
} as const;
const ORDERS = { id: undefined, priority: 'priority' } as const;
/** Creates made before the smallest search is measured again (department 1: none of its matches). */
const AFTER_WRITES = 20_000;

type Kind = BenchDatabase;

/** The cursor store's size in bytes and its number of cursors, read from outside the server. */
function storeProbe(kind: Kind, sqliteFile: string, pgUrl?: string) {
  if (kind === 'sqlite') {
    const db = new Database(sqliteFile, { readonly: true });
    const size = db.prepare(
      `select coalesce(sum(pgsize), 0) as b from dbstat where name like 'mrs_cursors%' or name like 'sqlite_autoindex_mrs_cursors%'`,
    );
    const count = db.prepare('select count(*) as n from mrs_cursors where chunk = 0');
    return {
      read: async () => ({ bytes: Number((size.get() as { b: number }).b), cursors: Number((count.get() as { n: number }).n) }),
      close: async () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: pgUrl, max: 1 });
  return {
    async read() {
      const { rows } = await pool.query(`select pg_total_relation_size('"demo.main".mrs_cursors') as b,
        (select count(*) from "demo.main".mrs_cursors where chunk = 0) as n`);
      return { bytes: Number(rows[0].b), cursors: Number(rows[0].n) };
    },
    close: () => pool.end(),
  };
}

async function measureDatabase(kind: Kind): Promise<void> {
  // BENCH_PORT: SQLite's port (PostgreSQL's 10 above it), so two runs can go at once.
  const base = process.env.BENCH_PORT;
  const port = base ? Number(base) + (kind === 'sqlite' ? 0 : 10) : kind === 'sqlite' ? 18280 : 18380;
  // The floors read SQLite from a file; on PostgreSQL runs they read PostgreSQL.
  const demo = await seededDemo(kind, port, 'tables');
  const { env, origin, sqliteFile } = demo;
  await withCleanup(demo, async (stops) => {
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = await demo.adminHeaders();
    const floors: Record<string, { where: string; order?: string }> = {};
    for (const [s, search] of Object.entries(SEARCHES))
      for (const [o, order] of Object.entries(ORDERS)) floors[`${s}-${o}`] = { where: search.where, ...(order ? { order } : {}) };
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/servers/baseline.ts', String(port + 1), sqliteFile],
      { BASELINE_FLOORS: JSON.stringify(floors), ...demo.baselineEnv },
      `http://127.0.0.1:${port + 1}/bare`,
    );
    stops.push(() => baseline.kill('SIGTERM'));
    const probe = storeProbe(kind, sqliteFile, demo.pgUrl);
    stops.push(() => void probe.close());
    const floorUrl = (name: string) => `http://127.0.0.1:${port + 1}/${kind === 'sqlite' ? 'floor' : 'floor-pg'}/${name}`;

    const rows: (string | number)[][] = [];
    const targets: [string, number, number][] = [];
    const rates: Record<string, number> = {};
    for (const [s, search] of Object.entries(SEARCHES)) {
      for (const [o, order] of Object.entries(ORDERS)) {
        const name = `${s}-${o}`;
        const query = [search.query, order ? `$orderBy=${order}` : ''].filter(Boolean).join('&');
        const url = `${origin}${M}/work_orders${query ? `?${query}` : ''}`;
        const first = await fetch(url, { headers });
        if (first.status !== 200) throw new Error(`${name} answered ${first.status}: ${await first.text()}`);
        const total = Number(first.headers.get('x-total'));
        const floor1 = await load(floorUrl(name));
        const before = await probe.read();
        const engine: LoadResult = await load(url, { headers });
        const after = await probe.read();
        const floor2 = await load(floorUrl(name));
        const floor = (floor1.rps + floor2.rps) / 2;
        const made = after.cursors - before.cursors;
        const bytes = made > 0 ? (after.bytes - before.bytes) / made : NaN;
        const later = await laterPages(url, headers);
        rows.push([
          name,
          total,
          fmt(floor, 0),
          fmt(engine.rps, 0),
          engine.non2xx + engine.errors,
          fmt(engine.rps / floor),
          fmt(bytes, 0),
          fmt(later.first, 1),
          fmt(later.next, 1),
        ]);
        targets.push([`${name} / floor`, engine.rps / floor, 0.5]);
        rates[name] = engine.rps;
      }
    }
    // The smallest search again, after many writes and nothing vacuumed.
    const s500 = `${origin}${M}/work_orders?${SEARCHES.s500.query}`;
    await createWorkOrders(origin, headers, AFTER_WRITES, (i) => ({
      department_id: 1,
      work_order_type_id: 2,
      work_order_type_group_id: 3,
      description: `after ${i}`,
    }));
    {
      const floor1 = await load(floorUrl('s500-id'));
      const engine = await load(s500, { headers });
      const floor2 = await load(floorUrl('s500-id'));
      const floor = (floor1.rps + floor2.rps) / 2;
      rows.push([
        `s500-id after ${AFTER_WRITES} creates`,
        Number((await fetch(s500, { headers })).headers.get('x-total')),
        fmt(floor, 0),
        fmt(engine.rps, 0),
        engine.non2xx + engine.errors,
        fmt(engine.rps / floor),
        '',
        '',
        '',
      ]);
      targets.push([`s500-id after ${AFTER_WRITES} creates / floor`, engine.rps / floor, 0.5]);
      console.log(`${kind}: s500-id after ${AFTER_WRITES} creates against before them: ${fmt(engine.rps / rates['s500-id']!)}`);
    }
    console.log(`\n${kind}: new searches against their floor (page + COUNT of the same filter)`);
    console.log(
      table([
        [
          'search',
          'matches',
          'floor req/s',
          'engine req/s',
          'errors',
          'ratio',
          'cursor bytes/search',
          'first later page ms',
          'later page ms',
        ],
        ...rows,
      ]),
    );
    console.log(table([['target', 'ratio', 'at least', 'met'], ...targets.map(([n, r, t]) => [n, fmt(r), t, r >= t ? 'yes' : 'no'])]));
  });
}

/** Rounds of laterPages: each a new search, then two later pages, one request at a time. */
const LATER_ROUNDS = 7;

/**
 * What a lazy cursor's first later page costs (it makes the ids: engine/cursor/lazy.ts) and a
 * page after it: medians, in ms, of LATER_ROUNDS new searches, one request at a time.
 */
async function laterPages(url: string, headers: Record<string, string>): Promise<{ first: number; next: number }> {
  const firsts: number[] = [];
  const nexts: number[] = [];
  const timed = async (u: string) => {
    const start = performance.now();
    const r = await fetch(u, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${u} answered ${r.status}`);
    return performance.now() - start;
  };
  for (let i = 0; i < LATER_ROUNDS; i++) {
    const r = await fetch(url, { headers });
    await r.arrayBuffer();
    const page = (p: number) => `${url.split('?')[0]}?$cursor=${r.headers.get('x-cursor')}&$page=${p}`;
    firsts.push(await timed(page(2)));
    nexts.push(await timed(page(3)));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return { first: median(firsts), next: median(nexts) };
}

export const run = (): Promise<void> => onEachDatabase(measureDatabase);
