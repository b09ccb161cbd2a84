import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** autocannon from this process (the servers run in their own), bounded in time, 127.0.0.1 only. */
export async function load(url: string, opts: { seconds?: number; connections?: number; headers?: Record<string, string>; requests?: autocannon.Request[] } = {}): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: opts.connections ?? 50,
    duration: opts.seconds ?? Number(process.env.BENCH_SECONDS ?? 10),
    headers: opts.headers,
    ...(opts.requests ? { requests: opts.requests } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}
