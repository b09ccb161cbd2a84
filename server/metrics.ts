import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { requestMetrics } from './request-metrics.ts';
import type { TenantStore } from './tenants/types.ts';

export interface Metrics {
  readonly registry: Registry;
  /** Counts and times one request by method, route pattern and status (latency in seconds). */
  record(method: string, route: string, status: number, seconds: number): void;
  /** The Prometheus text of every metric (cursors and pool read at scrape time). */
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  readonly tenants: TenantStore;
  /** The event streams (`{base}/events` as Server-Sent Events) open now. */
  readonly streamsOpen?: () => number;
  /** The cursors' clock, in epoch milliseconds. */
  readonly now?: () => number;
}

/** Cursors not yet expired in one tenant: one head row (chunk 0) per cursor. */
async function cursorsAlive(tenants: TenantStore, now: number): Promise<number> {
  let n = 0;
  for (const t of await tenants.opened()) {
    const row = await t.db
      .selectFrom('mrs_cursors')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('chunk', '=', 0)
      .where('expires_at', '>=', now)
      .executeTakeFirst();
    n += Number(row?.n ?? 0);
  }
  return n;
}

/** Process metrics (memory, CPU, event loop, GC) are the process's, not a service's: collected once. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * A registry of the service's own (one per service, so several services in one process do not
 * collide). Cursor and pool gauges are read when scraped: nothing runs between scrapes.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  const process = processMetrics();
  const now = options.now ?? Date.now;
  const requests = requestMetrics(registry, {
    counterName: 'mrs_http_requests_total',
    counterHelp: 'HTTP requests by method, route pattern and status.',
    histogramName: 'mrs_http_request_duration_seconds',
    histogramHelp: 'HTTP request latency by method, route pattern and status.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  new Gauge({
    name: 'mrs_cursors_alive',
    help: 'Cursors not yet expired, in the tenants this process has open.',
    registers: [registry],
    async collect() {
      this.set(await cursorsAlive(options.tenants, now()));
    },
  });
  new Gauge({
    name: 'mrs_tenants_open',
    help: 'Tenant databases this process has open.',
    registers: [registry],
    async collect() {
      this.set((await options.tenants.opened()).length);
    },
  });
  new Gauge({
    name: 'mrs_events_streams_open',
    help: 'Event streams (the change feed as Server-Sent Events) this process is serving.',
    registers: [registry],
    collect() {
      this.set(options.streamsOpen?.() ?? 0);
    },
  });
  new Gauge({
    name: 'mrs_db_pool_connections',
    help: 'PostgreSQL pool connections by state: total, idle, waiting (clients queued for one).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = options.tenants.poolStats();
      if (!s) return;
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
  return {
    registry,
    contentType: registry.contentType,
    text: async () => `${await registry.metrics()}\n${await process.metrics()}`,
    record: requests.record,
  };
}
