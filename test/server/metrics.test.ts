import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkOrder } from '../support/fixtures.ts';
import { DATABASES, M, type Harness } from '../support/harness.ts';
import { startOwnService } from '../support/own-service.ts';

/** The value of one sample line `name{labels} value`; labels in the order prom-client writes them. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = l ? `${name}{${l}} ` : `${name} `;
  const line = text.split('\n').find((x) => x.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

for (const db of DATABASES) {
  describe(`/metrics [${db}]`, () => {
    let clock = Date.now();
    let s: Awaited<ReturnType<typeof startOwnService>>;
    let h: Harness;
    const scrape = async () => {
      const r = await h.request('GET', '/metrics', { token: null });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return r.text;
    };
    beforeAll(async () => {
      s = await startOwnService(db, { CURSOR_TTL_S: '60' }, { now: () => clock });
      h = s.harness;
    });
    afterAll(async () => s?.stop());

    it('counts requests by method, route pattern and status, with a latency histogram', async () => {
      const wo = await makeWorkOrder(h);
      const route = `${M}/work_orders/{id}`;
      const before = sample(await scrape(), 'mrs_http_requests_total', { method: 'GET', route, status: '200' }) ?? 0;
      for (let i = 0; i < 3; i++) expect((await h.get(`${M}/work_orders/${wo.id}`)).status).toBe(200);
      await h.get(`${M}/work_orders/987654`);
      const text = await scrape();
      expect(sample(text, 'mrs_http_requests_total', { method: 'GET', route, status: '200' })).toBe(before + 3);
      expect(sample(text, 'mrs_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
      expect(sample(text, 'mrs_http_requests_total', { method: 'POST', route: `${M}/work_orders`, status: '201' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(sample(text, 'mrs_http_request_duration_seconds_count', { method: 'GET', route, status: '200' })).toBe(before + 3);
      expect(sample(text, 'mrs_http_request_duration_seconds_bucket', { le: '+Inf', method: 'GET', route, status: '200' })).toBe(
        before + 3,
      );
      expect(text).not.toContain(`/work_orders/${wo.id}`);
      expect(text).not.toContain('987654');
    });

    it('counts cursors alive, and forgets them when they expire', async () => {
      const before = sample(await scrape(), 'mrs_cursors_alive')!;
      expect(before).toBeGreaterThanOrEqual(0);
      await h.get(`${M}/work_orders`);
      await h.get(`${M}/notes`);
      expect(sample(await scrape(), 'mrs_cursors_alive')).toBe(before + 2);
      clock += 70_000; // past the TTL and the slack the engine adds to it
      expect(sample(await scrape(), 'mrs_cursors_alive')).toBe(0);
      clock -= 70_000;
    });

    it('shows the open tenants and, on PostgreSQL, the pool', async () => {
      const text = await scrape();
      expect(sample(text, 'mrs_tenants_open')).toBeGreaterThanOrEqual(1);
      const total = sample(text, 'mrs_db_pool_connections', { state: 'total' });
      if (db === 'postgres') {
        expect(total).toBeGreaterThanOrEqual(1);
        expect(sample(text, 'mrs_db_pool_connections', { state: 'idle' })).toBeLessThanOrEqual(total!);
        expect(sample(text, 'mrs_db_pool_connections', { state: 'waiting' })).toBe(0);
      } else {
        expect(total).toBeUndefined();
      }
      expect(text).toContain('process_resident_memory_bytes');
    });

    it('needs no token', async () => {
      expect((await h.request('GET', '/metrics', { token: null })).status).toBe(200);
    });
  });
}
