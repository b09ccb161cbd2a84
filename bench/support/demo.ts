/** The demo tenant and server settings that the one-path tools (ab.ts, profile.ts) share. */
import type autocannon from 'autocannon';

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
 * a GET. AB_IDEMPOTENCY_KEYS=true sends a new Idempotency-Key with each.
 */
export function bodyRequestsFromEnv(): { requests?: autocannon.Request[] } {
  const method = process.env.AB_METHOD;
  if (!method) return {};
  const request: autocannon.Request = { method: method as autocannon.Request['method'], body: process.env.AB_BODY ?? '' };
  if (process.env.AB_IDEMPOTENCY_KEYS === 'true') {
    const prefix = `${Date.now().toString(36)}-`;
    let n = 0;
    request.setupRequest = (req) => Object.assign({}, req, { headers: Object.assign({}, req.headers, { 'idempotency-key': `${prefix}${n++}` }) });
  }
  return { requests: [request] };
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
