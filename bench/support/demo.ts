/** The demo tenant and server settings that the one-path tools (ab.ts, profile.ts) share. */
import type { ChildProcess } from 'node:child_process';
import type autocannon from 'autocannon';
import { bearer } from './auth.ts';

/** `mrs serve`'s environment for a benchmark: no rate limit in the way, no log lines. */
export const serveEnv = (dataDir: string, port: number): Record<string, string> => ({
  DATA_DIR: dataDir,
  PORT: String(port),
  RATE_LIMIT_MAX: '1000000000',
  AUTH_RATE_LIMIT_MAX: '1000000',
  LOG_LEVEL: 'silent',
});

/**
 * Tenant demo.main with `workOrders` seeded work orders and user admin, made through `mrs`
 * (a runner of its subcommands); returns a new API key of admin.
 */
export async function demoTenant(mrs: (...args: string[]) => Promise<string>, workOrders = 100_000): Promise<string> {
  await mrs('tenant', 'create', 'demo.main');
  await mrs('seed', 'demo.main', '--work-orders', String(workOrders));
  await mrs('user', 'create', 'demo.main', 'admin', '--role', 'admin');
  return (await mrs('key', 'create', 'demo.main', 'admin')).trim();
}

/**
 * The load's requests for a path that takes a body (AB_METHOD, e.g. POST, with AB_BODY); none for
 * a GET. AB_IDEMPOTENCY_KEYS=true sends a new Idempotency-Key with each; `{id}` in the path is a
 * random record among the first AB_IDS (default 100,000) for each request.
 */
export function bodyRequestsFromEnv(): { requests?: autocannon.Request[] } {
  const method = process.env.AB_METHOD;
  if (!method) return {};
  const request: autocannon.Request = { method: method as autocannon.Request['method'], body: process.env.AB_BODY ?? '' };
  const keyed = process.env.AB_IDEMPOTENCY_KEYS === 'true';
  const prefix = `${Date.now().toString(36)}-`;
  let n = 0;
  const atRandom = atRandomRecord(Number(process.env.AB_IDS ?? 100_000));
  request.setupRequest = (req) => {
    const out = atRandom(req);
    if (keyed) out.headers = Object.assign({}, req.headers, { 'idempotency-key': `${prefix}${n++}` });
    return out;
  };
  return { requests: [request] };
}

/**
 * An autocannon `setupRequest` that replaces `{id}` in the path with a record picked at random
 * among the first `ids` for each request: writes spread over many records, no hot row (whose
 * lock waits a benchmark of one record would measure).
 */
export function atRandomRecord(ids: number): (req: autocannon.Request) => autocannon.Request {
  return (req) => {
    const out = Object.assign({}, req);
    if (req.path?.includes('%7Bid%7D') || req.path?.includes('{id}'))
      out.path = req.path.replace(/%7Bid%7D|\{id\}/, String(1 + Math.floor(Math.random() * ids)));
    return out;
  };
}

/**
 * The path with `{cursor}` replaced by the X-Cursor of a search made first (CURSOR_SEARCH, default
 * `department_id=7&status=open`, the HTTP benchmark's); a path without it as it is.
 */
export async function withCursor(origin: string, path: string, headers: Record<string, string>): Promise<string> {
  if (!path.includes('{cursor}')) return path;
  const search = process.env.CURSOR_SEARCH ?? 'department_id=7&status=open';
  const first = await fetch(`${origin}/v4_server/external/v1/maintenance/work_orders?${search}`, { headers });
  return path.replace('{cursor}', first.headers.get('x-cursor') ?? 'none');
}

/**
 * `n` creates of work orders through the server at `origin`, 50 at a time; `body(i)` is the i-th
 * one's body (by default spread over departments 1-9).
 */
export async function createWorkOrders(
  origin: string,
  headers: Record<string, string>,
  n: number,
  body = (i: number) => ({ department_id: 1 + (i % 9), work_order_type_id: 2, work_order_type_group_id: 3, description: `events ${i}` }),
): Promise<void> {
  const h = { ...headers, 'content-type': 'application/json' };
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, async () => {
        const w = await fetch(`${origin}/v4_server/external/v1/maintenance/work_orders`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify(body(i)),
        });
        if (w.status !== 201) throw new Error(`a create answered ${w.status}: ${await w.text()}`);
      }),
    );
  }
}

/**
 * `n` creates of work orders through a server of their own (events for a path such as
 * `/events?$after=...`): `start` starts it, and it is stopped after. None when `n` is 0.
 */
export async function writeEvents(n: number, origin: string, key: string, start: () => Promise<ChildProcess>): Promise<void> {
  if (n <= 0) return;
  await throughServer(start, async () => createWorkOrders(origin, await bearer(origin, key), n));
}

/**
 * AB_SETUP's requests (`METHOD /path JSON`, several separated by `;;`), each made through a server
 * of their own before the load, each expected to succeed: records the load's writes name (a
 * service request its PATCHes link work orders to, say). Paths are under `/v4_server/external/v1`.
 */
export async function setupRequests(
  spec: string | undefined,
  origin: string,
  key: string,
  start: () => Promise<ChildProcess>,
): Promise<void> {
  const requests = (spec ?? '')
    .split(';;')
    .map((r) => r.trim())
    .filter(Boolean);
  if (requests.length === 0) return;
  await throughServer(start, async () => {
    const headers = { ...(await bearer(origin, key)), 'content-type': 'application/json' };
    for (const r of requests) {
      const [method, path, ...body] = r.split(' ');
      const res = await fetch(`${origin}/v4_server/external/v1${path}`, {
        method,
        headers,
        body: body.length ? body.join(' ') : undefined,
      });
      if (!res.ok) throw new Error(`AB_SETUP: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    }
  });
}

/** Runs `work` with a server `start` starts, and stops it after. */
async function throughServer(start: () => Promise<ChildProcess>, work: () => Promise<void>): Promise<void> {
  const server = await start();
  try {
    await work();
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
}
