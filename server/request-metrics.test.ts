import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requestMetrics } from './request-metrics.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const NAMES = { counterName: 'req_total', counterHelp: 'Requests.', histogramName: 'req_seconds', histogramHelp: 'Latency.' };

/** The text prom-client's own Counter and Histogram give for the same requests. */
async function promClientText(calls: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const counter = new Counter({
    name: NAMES.counterName,
    help: NAMES.counterHelp,
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: NAMES.histogramName,
    help: NAMES.histogramHelp,
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of calls) {
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  return registry.metrics();
}

async function ownText(calls: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const m = requestMetrics(registry, { ...NAMES, buckets: BUCKETS });
  for (const [method, route, status, seconds] of calls) m.record(method, route, status, seconds);
  return registry.metrics();
}

describe('request metrics', () => {
  it('give the same Prometheus text as prom-client for any requests', async () => {
    const call = fc.tuple(
      fc.constantFrom('GET', 'POST', 'PATCH'),
      fc.constantFrom('/a', '/a/{id}', 'unmatched', 'say "hi"\\'),
      fc.constantFrom(200, 201, 404, 500),
      fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(...BUCKETS)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        expect(await ownText(calls)).toBe(await promClientText(calls));
      }),
    );
  });

  it('count and time each request under its labels', async () => {
    const registry = new Registry();
    const m = requestMetrics(registry, { ...NAMES, buckets: [0.1, 1] });
    m.record('GET', '/a', 200, 0.05);
    m.record('GET', '/a', 200, 0.5);
    m.record('GET', '/a', 404, 2);
    const text = await registry.metrics();
    expect(text).toContain('req_total{method="GET",route="/a",status="200"} 2');
    expect(text).toContain('req_seconds_bucket{le="0.1",method="GET",route="/a",status="200"} 1');
    expect(text).toContain('req_seconds_bucket{le="1",method="GET",route="/a",status="200"} 2');
    expect(text).toContain('req_seconds_bucket{le="+Inf",method="GET",route="/a",status="404"} 1');
    expect(text).toContain('req_seconds_sum{method="GET",route="/a",status="200"} 0.55');
  });
});
