import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { MigrationStep } from '../../engine/schema/index.ts';
import type { ResourceDefinition } from '../../engine/define.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import { createService, ensureDemoTenant, type Service } from '../../server/service.ts';
import { login, type Login } from './auth.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from './pg.ts';
import { startPgBouncer } from './pgbouncer.ts';

export const BASE = '/v4_server/external/v1';
export const M = `${BASE}/maintenance`;

export type DatabaseName = 'sqlite' | 'postgres';
/**
 * TEST_PGBOUNCER=true: the PostgreSQL half only, each fresh database behind its own PgBouncer in
 * transaction mode, and the service without named prepared statements (`.ci/run`'s second run).
 */
export const VIA_PGBOUNCER = process.env.TEST_PGBOUNCER === 'true';
// The CLI tests run `mrs` in this process, configured from process.env.
if (VIA_PGBOUNCER) process.env.PG_PREPARED_STATEMENTS = 'false';
export const DATABASES: DatabaseName[] = VIA_PGBOUNCER ? ['postgres'] : TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface HarnessRequest {
  body?: unknown;
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /**
   * The bearer token to send: default the harness's token (user admin of demo.main); a string
   * sends that one; null sends none. An `authorization` entry in `headers` wins over both.
   */
  token?: string | null;
}

export interface Harness {
  readonly db: DatabaseName;
  readonly service: Service;
  /** The token sent by default (admin of demo.main, unless made by `as`); null sends none. */
  readonly token: string | null;
  request(method: string, path: string, init?: HarnessRequest): Promise<Reply>;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  post(path: string, body: unknown): Promise<Reply>;
  patch(path: string, body: unknown): Promise<Reply>;
  put(path: string, body: unknown): Promise<Reply>;
  del(path: string): Promise<Reply>;
  /** The same harness sending another token by default (null: none). */
  as(token: string | null): Harness;
  /** A user in a tenant (both made when absent, the user with `roles`, default admin), a fresh key, and its token. */
  login(options?: { clientDb?: string; username?: string; roles?: readonly string[] }): Promise<Login>;
  /** `Authorization: Bearer <token>` as a header object, for requests made without the harness. */
  authHeaders(token?: string): Record<string, string>;
}

export interface StartOptions {
  resources?: readonly ResourceDefinition[];
  /** The deployment's migration steps (default: the checkout's migrations/ folder). */
  steps?: readonly MigrationStep[];
  env?: Record<string, string>;
  /** The service's clock, in epoch milliseconds. */
  now?: () => number;
  /** Reuse a data directory or database (to restart the service on the same data). */
  reuse?: { dataDir?: string; databaseUrl?: string };
  /** How long the service trusts what it read about an API key (default 2000 ms). */
  keyStateTtlMs?: number;
  /** How often the webhook dispatcher looks for webhooks (default 5000 ms). */
  webhookRefreshMs?: number;
}

/** A service on a fresh SQLite directory or PostgreSQL database, spoken to through app.request(). */
export async function startHarness(db: DatabaseName, options: StartOptions = {}) {
  let dataDir = options.reuse?.dataDir;
  let databaseUrl = options.reuse?.databaseUrl;
  let cleanup = async () => {};
  if (db === 'sqlite' && !dataDir) {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-test-'));
    dataDir = dir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  if (db === 'postgres' && !dataDir) {
    // Attached files' bytes go under DATA_DIR on every database.
    const dir = mkdtempSync(join(tmpdir(), 'mrs-test-'));
    dataDir = dir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  if (db === 'postgres' && !databaseUrl) {
    const fresh = await freshPostgresDatabase();
    const removeDir = cleanup;
    databaseUrl = fresh.url;
    cleanup = async () => {
      await fresh.drop();
      await removeDir();
    };
    if (VIA_PGBOUNCER) {
      const bouncer = await startPgBouncer(fresh.url);
      databaseUrl = bouncer.url;
      cleanup = async () => {
        await bouncer.stop();
        await fresh.drop();
        await removeDir();
      };
    }
  }
  // Suites make far more calls than a real client: rate limits are lifted unless a test sets them.
  const limits = { RATE_LIMIT_MAX: '1000000000', AUTH_RATE_LIMIT_MAX: '1000000000' };
  const pooler = VIA_PGBOUNCER ? { PG_PREPARED_STATEMENTS: 'false' } : {};
  const config: Config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ...limits, ...pooler, ...options.env });
  const service = await createService(config, {
    resources: options.resources,
    ...(options.steps ? { steps: options.steps } : {}),
    now: options.now,
    keyStateTtlMs: options.keyStateTtlMs,
    webhookRefreshMs: options.webhookRefreshMs,
    onUnexpectedError: () => {},
  });
  await ensureDemoTenant(service.tenants);
  const { token } = await login(service);
  const harness = makeHarness(db, service, token);
  return {
    harness,
    dataDir,
    databaseUrl,
    async stop(keepData = false) {
      await service.close();
      if (!keepData) await cleanup();
    },
    cleanup,
  };
}

export function makeHarness(db: DatabaseName, service: Service, token: string | null = null): Harness {
  const request: Harness['request'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const bearer = init.token === undefined ? token : init.token;
    if (bearer !== null && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization'))
      headers.authorization = `Bearer ${bearer}`;
    let body: string | Uint8Array | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await service.app.request(path, { method, headers, body: body as BodyInit | undefined });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    db,
    service,
    token,
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body) => request('POST', path, { body }),
    patch: (path, body) => request('PATCH', path, { body }),
    put: (path, body) => request('PUT', path, { body }),
    del: (path) => request('DELETE', path),
    as: (other) => makeHarness(db, service, other),
    login: (options) => login(service, options),
    authHeaders: (t = token ?? '') => ({ authorization: `Bearer ${t}` }),
  };
}

/** Runs a block of behaviour tests once per database, each on its own fresh data. */
export function describeEachDatabase(title: string, body: (h: () => Harness) => void, options: StartOptions = {}): void {
  for (const db of DATABASES) {
    describe(`${title} [${db}${VIA_PGBOUNCER ? ' via pgbouncer' : ''}]`, () => {
      let started: Awaited<ReturnType<typeof startHarness>>;
      beforeAll(async () => {
        started = await startHarness(db, options);
      });
      afterAll(async () => started?.stop());
      body(() => started.harness);
    });
  }
  if (!TEST_DATABASE_URL)
    describe(`${title} [postgres]`, () => {
      it.skip('skipped: TEST_DATABASE_URL is not set', () => {});
    });
}
