/**
 * Conditional writes, idempotency keys and batches (issue 28, SPEC 10), on 100,000 seeded work
 * orders, as ratios within one run: a PATCH with `If-Match` against a plain PATCH, a POST with a
 * fresh `Idempotency-Key` against a plain POST, and a batch of 50 creates against single creates
 * (records per second; under 50 connections, and for one client sending one request after
 * another, since a client syncing its records is what batches are for). The PATCHes spread over
 * 5,000 records, each handed to one request at a time with the ETag its last answer carried, so
 * every `If-Match` holds the current tag and no row is hot. The plain cases send a header of the
 * same size instead, so the load generator does the same work in both. SQLite, and PostgreSQL
 * with TEST_DATABASE_URL; BENCH_DATABASES (e.g. `postgres`) picks. The server is pinned to CPU 0;
 * BENCH_SECONDS sets each run's length, after a warm-up (BENCH_WARMUP_SECONDS) outside the
 * figures. The plain cases run before and after the others; ratios use their mean. Besides
 * req/s, each case's server CPU per record: the steadier measure on a shared machine (on
 * PostgreSQL it leaves out the database's).
 */
import { loadavg } from 'node:os';
import type autocannon from 'autocannon';
import { load, type LoadResult } from './support/load.ts';
import { cpuMicros, SERVE, startProcess } from './support/processes.ts';
import { seededDemo } from './support/seeded-demo.ts';
import { fmt, table } from './support/stats.ts';

type Kind = 'sqlite' | 'postgres';

interface Measured {
  readonly label: string;
  readonly r: LoadResult;
  /** Records a request writes. */
  readonly records: number;
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
  operations: Array.from({ length: BATCH_SIZE }, () => ({ method: 'POST', path: '/maintenance/work_orders', body: JSON.parse(newWorkOrder) })),
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
        return Object.assign({}, req, { path: `${M}/work_orders/${id}`, headers: Object.assign({}, req.headers, { [name]: spread.tag(id) }) });
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
  const stale = await fetch(`${origin}${M}/work_orders/${id}`, { method: 'PATCH', headers: { ...json, 'if-match': `"x${tag.slice(1)}` }, body: PATCH_BODY });
  if (stale.status !== 412) throw new Error(`a PATCH with a stale If-Match answered ${stale.status}`);
  const key = `check-${Date.now()}`;
  const post = () => fetch(`${origin}${M}/work_orders`, { method: 'POST', headers: { ...json, 'idempotency-key': key }, body: newWorkOrder });
  const first = await post();
  const again = await post();
  if (first.status !== 201 || again.headers.get('idempotency-replayed') !== 'true')
    throw new Error(`a repeated Idempotency-Key answered ${first.status}, then ${again.status} replayed=${again.headers.get('idempotency-replayed')}`);
  const batch = await fetch(`${origin}${BASE}/batch`, { method: 'POST', headers: json, body: batchBody });
  const outcomes = (await batch.json()) as { status: number }[];
  if (batch.status !== 200 || outcomes.length !== BATCH_SIZE || outcomes.some((o) => o.status !== 201))
    throw new Error(`a batch of ${BATCH_SIZE} creates answered ${batch.status}: ${JSON.stringify(outcomes).slice(0, 300)}`);
}

async function measureDatabase(kind: Kind): Promise<void> {
  const port = kind === 'sqlite' ? 18480 : 18580;
  const demo = await seededDemo(kind, port, 'tables');
  const { env, origin } = demo;
  const stops: (() => void)[] = [];
  try {
    const server = await startProcess(SERVE, env, `${origin}/healthz`);
    stops.push(() => server.kill('SIGTERM'));
    const headers = await demo.adminHeaders();
    const json = { ...headers, 'content-type': 'application/json' };
    const tags = await readSpread(origin, headers);
    await checkFeatures(origin, json, tags);
    const spread = new Spread(tags);
    const loadBefore = loadavg()[0]!;

    const results: Measured[] = [];
    // A warm-up load first, outside the CPU count, then the measured one.
    const measure = async (label: string, url: string, requests: autocannon.Request[], records = 1, connections = 50): Promise<Measured> => {
      await load(url, { headers: json, requests, connections, seconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2), warmupSeconds: 0 });
      const cpuBefore = await cpuMicros(server.pid!);
      const r = await load(url, { headers: json, requests, connections, warmupSeconds: 0 });
      const m = { label, r, records, recordsPerS: r.rps * records, cpuPerRecord: ((await cpuMicros(server.pid!)) - cpuBefore) / (r.requests * records) };
      results.push(m);
      return m;
    };
    const patchUrl = `${origin}${M}/work_orders/1`; // each request's path is set by the spread
    const createUrl = `${origin}${M}/work_orders`;
    const plainPatch1 = await measure(`PATCH, ${SPREAD} records (before)`, patchUrl, patches(spread, false));
    const ifMatch = await measure('PATCH with If-Match (current tag)', patchUrl, patches(spread, true));
    const plainPatch2 = await measure(`PATCH, ${SPREAD} records (after)`, patchUrl, patches(spread, false));
    const plainPost1 = await measure('POST (before)', createUrl, creates(false));
    const keyed = await measure('POST with a new Idempotency-Key', createUrl, creates(true));
    const batchUrl = `${origin}${BASE}/batch`;
    const batch = await measure(`POST /batch of ${BATCH_SIZE} creates`, batchUrl, [{ method: 'POST', body: batchBody }], BATCH_SIZE);
    const plainPost2 = await measure('POST (after)', createUrl, creates(false));
    // A lone client (one connection) syncing its records: one create after another, or batches.
    const lonePost1 = await measure('one client: POST (before)', createUrl, creates(false), 1, 1);
    const loneBatch = await measure(`one client: POST /batch of ${BATCH_SIZE} creates`, batchUrl, [{ method: 'POST', body: batchBody }], BATCH_SIZE, 1);
    const lonePost2 = await measure('one client: POST (after)', createUrl, creates(false), 1, 1);
    const mean = (a: Measured, b: Measured) => ({ recordsPerS: (a.recordsPerS + b.recordsPerS) / 2, cpuPerRecord: (a.cpuPerRecord + b.cpuPerRecord) / 2 });
    const plainPatch = mean(plainPatch1, plainPatch2);
    const plainPost = mean(plainPost1, plainPost2);
    const lonePost = mean(lonePost1, lonePost2);

    console.log(`\n${kind} (load average ${fmt(loadBefore)} before the loads, ${fmt(loadavg()[0]!)} after; ${spread.available} of ${SPREAD} records left in the spread)`);
    console.log(
      table([
        ['case', 'req/s', 'records/s', 'p50 ms', 'p99 ms', 'errors', 'server CPU us/record'],
        ...results.map((m) => [m.label, fmt(m.r.rps, 0), fmt(m.recordsPerS, 0), m.r.p50, m.r.p99, m.r.non2xx + m.r.errors, fmt(m.cpuPerRecord, 1)]),
      ]),
    );
    console.log(
      `baselines for the ratios (mean of before and after): PATCH ${fmt(plainPatch.recordsPerS, 0)} req/s, ${fmt(plainPatch.cpuPerRecord, 1)} us; ` +
        `POST ${fmt(plainPost.recordsPerS, 0)} req/s, ${fmt(plainPost.cpuPerRecord, 1)} us; one client's POST ${fmt(lonePost.recordsPerS, 0)} req/s, ${fmt(lonePost.cpuPerRecord, 1)} us`,
    );
    // The ratio of CPU per record (baseline's over the case's) moves far less with the machine's drift than req/s do.
    const targets: [string, Measured, { recordsPerS: number; cpuPerRecord: number }, number][] = [
      ['PATCH with If-Match / PATCH', ifMatch, plainPatch, 0.9],
      ['keyed POST / POST', keyed, plainPost, 0.8],
      [`batch of ${BATCH_SIZE} / single creates (records/s), 50 connections`, batch, plainPost, 10],
      [`batch of ${BATCH_SIZE} / single creates (records/s), one client`, loneBatch, lonePost, 10],
    ];
    console.log(
      table([
        ['target', 'ratio (req/s)', 'ratio (CPU)', 'at least', 'met'],
        ...targets.map(([n, m, base, t]) => {
          const r = m.recordsPerS / base.recordsPerS;
          return [n, fmt(r), fmt(base.cpuPerRecord / m.cpuPerRecord), t, r >= t ? 'yes' : 'no'];
        }),
      ]),
    );
  } finally {
    for (const stop of stops) stop();
    await new Promise((r) => setTimeout(r, 300));
    await demo.remove();
  }
}

export async function run(): Promise<void> {
  const wanted = (kind: Kind) => process.env.BENCH_DATABASES?.split(',').includes(kind) ?? true;
  if (wanted('sqlite')) await measureDatabase('sqlite');
  if (process.env.TEST_DATABASE_URL && wanted('postgres')) await measureDatabase('postgres');
}
