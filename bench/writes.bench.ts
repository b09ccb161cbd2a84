/**
 * Conditional writes, idempotency keys and batches (SPEC 10), on 100,000 seeded work
 * orders, as ratios within one run: a PATCH with `If-Match` against a plain PATCH, a POST with a
 * fresh `Idempotency-Key` against a plain POST, and a batch of 50 creates against single creates
 * (records per second; under 50 connections, and for one client sending one request after
 * another, since a client syncing its records is what batches are for). The PATCHes spread over
 * 5,000 records, each handed to one request at a time with the ETag its last answer carried, so
 * every `If-Match` holds the current tag and no row is hot. The plain cases send a header of the
 * same size instead, so the load generator does the same work in both. SQLite, and PostgreSQL
 * with TEST_DATABASE_URL; BENCH_DATABASES (e.g. `postgres`) picks. The server is pinned to CPU 0;
 * BENCH_SECONDS sets each run's length, after a warm-up (BENCH_WARMUP_SECONDS) outside the
 * figures. The cases compared run in turns, BENCH_ROUNDS times (default 3), the order turning
 * each round; ratios use the medians. Besides req/s, each case's server CPU per record: the
 * steadier measure on a shared machine (on PostgreSQL it leaves out the database's).
 */
import { loadavg } from 'node:os';
import type autocannon from 'autocannon';
import { load, type LoadResult } from './support/load.ts';
import { onEachDatabase, withCleanup, type BenchDatabase } from './support/databases.ts';
import { cpuMicros, SERVE, startProcess } from './support/processes.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { fmt, table } from './support/stats.ts';

/** One load on the server: its requests, and how many records each writes. */
interface Case {
  readonly label: string;
  readonly url: string;
  readonly requests: autocannon.Request[];
  readonly records: number;
  readonly connections: number;
}

interface Measured {
  readonly r: LoadResult;
  readonly recordsPerS: number;
  /** The server process's CPU time per record written, in microseconds. */
  readonly cpuPerRecord: number;
}

const BASE = '/v4_server/external/v1';
const M = `${BASE}/maintenance`;
const newWorkOrder = JSON.stringify({ department_id: 3, work_order_type_id: 2, work_order_type_group_id: 1, priority: 2 });
const PATCH_BODY = '{"priority":3}';
const SPREAD = 5_000;
const BATCH_SIZE = 50;
const batchBody = JSON.stringify({
  operations: Array.from({ length: BATCH_SIZE }, () => ({
    method: 'POST',
    path: '/maintenance/work_orders',
    body: JSON.parse(newWorkOrder),
  })),
});

/**
 * Records handed out one at a time, oldest returned first, each with the ETag of its last
 * answer. A record whose answer never came (the load stopped with it in flight) is not handed
 * out again: its tag is unknown.
 */
class Spread {
  private readonly queue: Int32Array;
  private head = 0;
  private size = 0;
  private readonly tags = new Map<number, string>();

  constructor(tags: Map<number, string>) {
    this.queue = new Int32Array(tags.size);
    for (const [id, tag] of tags) this.give(id, tag);
  }

  take(): number {
    if (this.size === 0) throw new Error('every record of the spread is in flight or lost');
    const id = this.queue[this.head]!;
    this.head = (this.head + 1) % this.queue.length;
    this.size--;
    return id;
  }

  tag = (id: number): string => this.tags.get(id)!;

  give(id: number, tag: string | undefined): void {
    if (tag === undefined) return; // lost: its tag is unknown
    this.tags.set(id, tag);
    this.queue[(this.head + this.size) % this.queue.length] = id;
    this.size++;
  }

  get available(): number {
    return this.size;
  }
}

type Headers = Record<string, string | string[] | undefined>;
const header = (h: Headers, name: string): string | undefined => {
  const v = h[name] ?? h[name.toUpperCase()] ?? Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
};

/** PATCHes over the spread: with the record's current tag in `If-Match`, or the same bytes in a header the server ignores. */
function patches(spread: Spread, conditional: boolean): autocannon.Request[] {
  return [
    {
      method: 'PATCH',
      body: PATCH_BODY,
      setupRequest: (req, context) => {
        const id = spread.take();
        (context as { id?: number }).id = id;
        const name = conditional ? 'if-match' : 'x-b-etag';
        return Object.assign({}, req, {
          path: `${M}/work_orders/${id}`,
          headers: Object.assign({}, req.headers, { [name]: spread.tag(id) }),
        });
      },
      onResponse: (status, _body, context, headers) => {
        // A 412 carries the current tag too; anything else leaves the record out.
        spread.give((context as { id: number }).id, status === 200 || status === 412 ? header(headers as Headers, 'etag') : undefined);
      },
    },
  ];
}

/** Creates, each with a new `Idempotency-Key`, or the same bytes in a header the server ignores. */
function creates(keyed: boolean): autocannon.Request[] {
  const prefix = `${Date.now().toString(36)}-${keyed ? 'k' : 'p'}-`;
  let n = 0;
  const name = keyed ? 'idempotency-key' : 'x-bench-idempot';
  return [
    {
      method: 'POST',
      body: newWorkOrder,
      setupRequest: (req) => Object.assign({}, req, { headers: Object.assign({}, req.headers, { [name]: `${prefix}${n++}` }) }),
    },
  ];
}

/** The spread's records (every 20th work order) and their current ETags, read with a few requests at a time. */
async function readSpread(origin: string, headers: Record<string, string>): Promise<Map<number, string>> {
  const ids = Array.from({ length: SPREAD }, (_, i) => 1 + i * 20);
  const tags = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 25) {
    await Promise.all(
      ids.slice(i, i + 25).map(async (id) => {
        const r = await fetch(`${origin}${M}/work_orders/${id}`, { headers });
        const etag = r.headers.get('etag');
        await r.arrayBuffer();
        if (r.status !== 200 || !etag) throw new Error(`GET work order ${id} answered ${r.status} with ETag ${etag}`);
        tags.set(id, etag);
      }),
    );
  }
  return tags;
}

/** The features are on and behave, so the loads measure them: a stale tag is 412, a repeated key replays, a batch writes all. */
async function checkFeatures(origin: string, json: Record<string, string>, tags: Map<number, string>): Promise<void> {
  const [id, tag] = tags.entries().next().value as [number, string];
  const stale = await fetch(`${origin}${M}/work_orders/${id}`, {
    method: 'PATCH',
    headers: { ...json, 'if-match': `"x${tag.slice(1)}` },
    body: PATCH_BODY,
  });
  if (stale.status !== 412) throw new Error(`a PATCH with a stale If-Match answered ${stale.status}`);
  const key = `check-${Date.now()}`;
  const post = () =>
    fetch(`${origin}${M}/work_orders`, { method: 'POST', headers: { ...json, 'idempotency-key': key }, body: newWorkOrder });
  const first = await post();
  const again = await post();
  if (first.status !== 201 || again.headers.get('idempotency-replayed') !== 'true')
    throw new Error(
      `a repeated Idempotency-Key answered ${first.status}, then ${again.status} replayed=${again.headers.get('idempotency-replayed')}`,
    );
  const batch = await fetch(`${origin}${BASE}/batch`, { method: 'POST', headers: json, body: batchBody });
  const outcomes = (await batch.json()) as { status: number }[];
  if (batch.status !== 200 || outcomes.length !== BATCH_SIZE || outcomes.some((o) => o.status !== 201))
    throw new Error(`a batch of ${BATCH_SIZE} creates answered ${batch.status}: ${JSON.stringify(outcomes).slice(0, 300)}`);
}

async function measureDatabase(kind: BenchDatabase): Promise<void> {
  const port = kind === 'sqlite' ? 18480 : 18580;
  const demo = await seededDemo(kind, port, 'tables');
  const { env, origin } = demo;
  await withCleanup(demo, async (stops) => {
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    const exited = (code: number | null, signal: string | null) =>
      console.error(`the server exited during the run (${code ?? signal}): ${stderr}`);
    server.once('exit', exited);
    stops.push(() => {
      server.off('exit', exited);
      server.kill('SIGTERM');
    });
    const headers = await demo.adminHeaders();
    const json = { ...headers, 'content-type': 'application/json' };
    const tags = await readSpread(origin, headers);
    await checkFeatures(origin, json, tags);
    const spread = new Spread(tags);
    const loadBefore = loadavg()[0]!;

    // A warm-up load first, outside the CPU count, then the measured one.
    const measure = async (c: Case): Promise<Measured> => {
      const opts = { headers: json, requests: c.requests, connections: c.connections };
      await load(c.url, { ...opts, seconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2), warmupSeconds: 0 });
      const cpuBefore = await cpuMicros(server.pid!);
      const r = await load(c.url, { ...opts, warmupSeconds: 0 });
      return { r, recordsPerS: r.rps * c.records, cpuPerRecord: ((await cpuMicros(server.pid!)) - cpuBefore) / (r.requests * c.records) };
    };
    const patchUrl = `${origin}${M}/work_orders/1`; // each request's path is set by the spread
    const createUrl = `${origin}${M}/work_orders`;
    const batchUrl = `${origin}${BASE}/batch`;
    const batchRequests = [{ method: 'POST' as const, body: batchBody }];
    const plainPatch: Case = {
      label: `PATCH, ${SPREAD} records`,
      url: patchUrl,
      requests: patches(spread, false),
      records: 1,
      connections: 50,
    };
    const ifMatch: Case = { ...plainPatch, label: 'PATCH with If-Match (current tag)', requests: patches(spread, true) };
    const plainPost: Case = { label: 'POST', url: createUrl, requests: creates(false), records: 1, connections: 50 };
    const keyed: Case = { ...plainPost, label: 'POST with a new Idempotency-Key', requests: creates(true) };
    const batch: Case = {
      label: `POST /batch of ${BATCH_SIZE} creates`,
      url: batchUrl,
      requests: batchRequests,
      records: BATCH_SIZE,
      connections: 50,
    };
    // A lone client (one connection) syncing its records: one create after another, or batches.
    const lonePost: Case = { ...plainPost, label: 'one client: POST', connections: 1 };
    const loneBatch: Case = { ...batch, label: `one client: POST /batch of ${BATCH_SIZE} creates`, connections: 1 };
    const groups = [
      [plainPatch, ifMatch],
      [plainPost, keyed, batch],
      [lonePost, loneBatch],
    ];
    // Each case of a group runs once per round, the order turning each round; ratios use medians.
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const runs = new Map<Case, Measured[]>();
    for (let round = 0; round < rounds; round++)
      for (const group of groups)
        for (const c of round % 2 ? [...group].reverse() : group) {
          const m = await measure(c);
          runs.set(c, [...(runs.get(c) ?? []), m]);
        }
    const median = (c: Case, of: (m: Measured) => number) => {
      const xs = runs
        .get(c)!
        .map(of)
        .sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)]!;
    };
    const rps = (c: Case) => median(c, (m) => m.recordsPerS);
    const cpu = (c: Case) => median(c, (m) => m.cpuPerRecord);

    console.log(
      `\n${kind} (load average ${fmt(loadBefore)} before the loads, ${fmt(loadavg()[0]!)} after; ${rounds} rounds, medians; ${spread.available} of ${SPREAD} records left in the spread)`,
    );
    console.log(
      table([
        ['case', 'req/s', 'records/s', 'records/s of each round', 'p50 ms', 'p99 ms', 'errors', 'server CPU us/record'],
        ...groups.flat().map((c) => [
          c.label,
          fmt(
            median(c, (m) => m.r.rps),
            0,
          ),
          fmt(rps(c), 0),
          runs
            .get(c)!
            .map((m) => fmt(m.recordsPerS, 0))
            .join(' '),
          median(c, (m) => m.r.p50),
          median(c, (m) => m.r.p99),
          runs.get(c)!.reduce((n, m) => n + m.r.non2xx + m.r.errors, 0),
          fmt(cpu(c), 1),
        ]),
      ]),
    );
    // The ratio of CPU per record (the baseline's over the case's) moves less with the machine's drift than req/s do.
    // The batch target compares one client's 50 records sent as one batch with the same
    // client sending them as 50 single creates (what a technician's sync does either way). Under
    // 50 connections single creates already share their commits (group commit on SQLite), so
    // that row shows the server's capacity for each, for information: no target.
    const targets: [string, Case, Case, number | undefined][] = [
      ['PATCH with If-Match / PATCH', ifMatch, plainPatch, 0.9],
      ['keyed POST / POST', keyed, plainPost, 0.8],
      [`batch of ${BATCH_SIZE} / single creates (records/s), one client`, loneBatch, lonePost, 10],
      [`batch of ${BATCH_SIZE} / single creates (records/s), 50 connections`, batch, plainPost, undefined],
    ];
    console.log(
      table([
        ['target', 'ratio (req/s)', 'ratio (CPU)', 'at least', 'met'],
        ...targets.map(([n, c, base, t]) => {
          const r = rps(c) / rps(base);
          return [n, fmt(r), fmt(cpu(base) / cpu(c)), t ?? '-', t === undefined ? '-' : r >= t ? 'yes' : 'no'];
        }),
      ]),
    );
  });
}

export const run = (): Promise<void> => onEachDatabase(measureDatabase);
