import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  /** Requests answered in the measured part. */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * autocannon from this process (the servers run in their own), bounded in time, 127.0.0.1 only.
 * Each run starts with an unmeasured warm-up at the same concurrency (BENCH_WARMUP_SECONDS,
 * default 2): the first second of a fresh case runs unoptimized code and fills statement caches,
 * and counting it measured how fast a case warms up (a fifth of its steady rate for the engine's
 * cases, half for bare Hono) as much as how fast it serves.
 */
export async function load(
  url: string,
  opts: {
    seconds?: number;
    warmupSeconds?: number;
    connections?: number;
    headers?: Record<string, string>;
    requests?: autocannon.Request[];
  } = {},
): Promise<LoadResult> {
  const connections = opts.connections ?? 50;
  const warmup = opts.warmupSeconds ?? Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
  const result = await autocannon({
    url,
    connections,
    ...(warmup > 0 ? { warmup: { connections, duration: warmup } } : {}),
    duration: opts.seconds ?? Number(process.env.BENCH_SECONDS ?? 10),
    headers: opts.headers,
    ...(opts.requests ? { requests: opts.requests } : {}),
  });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}
