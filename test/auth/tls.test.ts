import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { rawRequest } from '../support/raw-socket.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/config.ts';
import { listen, type Listening } from '../../server/node-server.ts';
import { expectProblem, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, M } from '../support/harness.ts';
import { startOwnService } from '../support/own-service.ts';

const dir = mkdtempSync(join(tmpdir(), 'mrs-tls-'));
const CERT = join(dir, 'cert.pem');
const KEY = join(dir, 'key.pem');
// A self-signed certificate for 127.0.0.1, made here: nothing is shipped or fetched.
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    KEY,
    '-out',
    CERT,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ],
  { stdio: 'ignore' },
);
const ca = readFileSync(CERT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startService = (env: Record<string, string>) => startOwnService('sqlite', env);

/** A GET over TLS that trusts only the test's certificate. */
function httpsGet(port: number, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, headers, ca, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const httpsPost = (port: number, path: string, body: unknown, headers: Record<string, string>) =>
  httpsGet(port, path, { ...headers, 'content-type': 'application/json' }, 'POST', JSON.stringify(body));

describe('TLS_CERT_FILE and TLS_KEY_FILE', () => {
  let started: Awaited<ReturnType<typeof startService>>;
  let l: Listening;
  beforeAll(async () => {
    started = await startService({ PORT: '0', TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY, REQUIRE_HTTPS: 'true' });
    l = await listen(started.harness.service);
  });
  afterAll(async () => {
    await l?.server.close();
    await started?.stop();
  });

  it('serve the API over HTTPS with the given certificate', async () => {
    expect(l.scheme).toBe('https');
    // app.request at http://localhost is plain HTTP: refused; the TLS socket is not.
    expectProblem(await started.harness.post(`${M}/work_orders`, WORK_ORDER), 403);
    const made = await httpsPost(l.port, `${M}/work_orders`, WORK_ORDER, started.harness.authHeaders());
    expect(made.status, made.body).toBe(201);
    const wo = JSON.parse(made.body);
    const r = await httpsGet(l.port, `${M}/work_orders/${wo.id}`, started.harness.authHeaders());
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body)).toEqual(wo);
    // REQUIRE_HTTPS is satisfied by the socket itself, and HTTPS answers ask browsers to stay on HTTPS.
    expect(r.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('do not answer plain HTTP on the same port', async () => {
    const answer = await rawRequest(l.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`).catch(() => '');
    expect(answer).not.toMatch(/^HTTP\/1\.1 200/);
  });

  it('that cannot be read stop the start naming the variable', async () => {
    const other = await startService({ PORT: '0', TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: KEY });
    try {
      await expect(listen(other.harness.service)).rejects.toThrow(ConfigError);
      await expect(listen(other.harness.service)).rejects.toThrow(/^TLS_CERT_FILE cannot be read/);
    } finally {
      await other.stop();
    }
  });

  it('that do not make a certificate stop the start with one line', async () => {
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    const other = await startService({ PORT: '0', TLS_CERT_FILE: junk, TLS_KEY_FILE: KEY });
    try {
      await expect(listen(other.harness.service)).rejects.toThrow(/TLS_CERT_FILE and TLS_KEY_FILE do not make a usable certificate/);
    } finally {
      await other.stop();
    }
  });
});

describe('REQUIRE_HTTPS', () => {
  const starts: Awaited<ReturnType<typeof startService>>[] = [];
  const start = async (env: Record<string, string>) => {
    const s = await startService(env);
    starts.push(s);
    return s.harness;
  };
  afterAll(async () => {
    for (const s of starts) await s.stop();
  });

  it('refuses plain requests with a 403 problem naming HTTPS, before anything else runs', async () => {
    const h = await start({ REQUIRE_HTTPS: 'true' });
    const r = await h.get(`${M}/work_orders`);
    expectProblem(r, 403);
    expect(r.body.type).toMatch(/https-required$/);
    expect(r.body.detail).toMatch(/HTTPS only/);
    expectProblem(await h.request('GET', `${M}/work_orders`, { token: null }), 403);
    expectProblem(await h.request('POST', `${BASE}/authenticate`, { body: {} }), 403);
  });

  it('ignores X-Forwarded-Proto unless TRUST_PROXY is on', async () => {
    const h = await start({ REQUIRE_HTTPS: 'true' });
    expectProblem(await h.get(`${M}/work_orders`, { 'x-forwarded-proto': 'https' }), 403);
    const proxied = await start({ REQUIRE_HTTPS: 'true', TRUST_PROXY: 'true' });
    expect((await proxied.get(`${M}/work_orders`, { 'x-forwarded-proto': 'https' })).status).toBe(200);
    expect((await proxied.get(`${M}/work_orders`, { 'x-forwarded-proto': 'http, https' })).status).toBe(200);
    expectProblem(await proxied.get(`${M}/work_orders`, { 'x-forwarded-proto': 'http' }), 403);
    expectProblem(await proxied.get(`${M}/work_orders`), 403);
  });

  it('leaves /healthz, /readyz and /metrics to any transport, and is off by default', async () => {
    const h = await start({ REQUIRE_HTTPS: 'true' });
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await h.get(path)).status, path).toBe(200);
    const off = await start({});
    expect((await off.get(`${M}/work_orders`)).status).toBe(200);
  });

  it('is not fooled by an absolute https:// request target sent over plain HTTP', async () => {
    const s = await startService({ PORT: '0', REQUIRE_HTTPS: 'true' });
    starts.push(s);
    const l = await listen(s.harness.service);
    try {
      const answer = await rawRequest(
        l.port,
        `GET https://127.0.0.1:${l.port}${M}/work_orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.harness.token}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer).toMatch(/https-required/);
    } finally {
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    }
  });
});
