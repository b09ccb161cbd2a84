import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { cors } from '../../server/cors.ts';
import { AUTHENTICATE } from '../support/auth.ts';
import { makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M, type Harness, type Reply } from '../support/harness.ts';

const APP = 'https://app.example';
const DEV = 'http://127.0.0.1:5173';
const EVIL = 'https://evil.example';

const REQUIRED_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Request-Id',
];
const CONTRACT_HEADERS = [
  'X-Total',
  'X-Cursor',
  'Link',
  'Location',
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'X-Request-Id',
  'X-Change-Seq',
  'Idempotency-Replayed',
  'Last-Modified',
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
];

const list = (v: string | null) => (v ?? '').split(/,\s*/).filter(Boolean);
const corsHeaderNames = (r: { headers: Headers }) => [...r.headers.keys()].filter((k) => k.startsWith('access-control-'));
const preflight = (h: Harness, path: string, origin = APP, method = 'GET') =>
  h.request('OPTIONS', path, {
    token: null,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' },
  });

function expectExposed(r: Reply, origin: string): void {
  expect(r.headers.get('access-control-allow-origin'), `${r.status} ${r.text}`).toBe(origin);
  expect(
    list(r.headers.get('access-control-expose-headers'))
      .map((h) => h.toLowerCase())
      .sort(),
  ).toEqual(CONTRACT_HEADERS.map((h) => h.toLowerCase()).sort());
  expect(list(r.headers.get('vary'))).toContain('Origin');
}

describe('CORS_ORIGINS', () => {
  it('reads *, or origins in the form a browser sends them', () => {
    expect(loadConfig({}).corsOrigins).toBeUndefined();
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: `${APP}, ${DEV}` }).corsOrigins).toEqual([APP, DEV]);
    expect(loadConfig({ CORS_ORIGINS: 'HTTPS://App.Example:443/' }).corsOrigins).toEqual([APP]);
  });

  for (const bad of [
    'app.example',
    'https://app.example/path',
    'ftp://app.example',
    `*,${APP}`,
    `${APP},`,
    'https://user@app.example',
    `${APP}?q=1`,
  ]) {
    it(`refuses CORS_ORIGINS=${bad} with one line naming it`, () => {
      let error: unknown;
      try {
        loadConfig({ CORS_ORIGINS: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message.startsWith('CORS_ORIGINS '), message).toBe(true);
      expect(message).not.toContain('\n');
    });
  }
});

describeEachDatabase(
  'CORS with listed origins',
  (h) => {
    it('answers a preflight 204 before authentication, with the path methods, headers and max age', async () => {
      const r = await preflight(h(), `${M}/work_orders`);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expect(r.headers.get('access-control-allow-origin')).toBe(APP);
      expect(list(r.headers.get('access-control-allow-methods'))).toEqual(['GET', 'HEAD', 'POST']);
      expect(list(r.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(REQUIRED_ALLOW_HEADERS));
      expect(r.headers.get('access-control-max-age')).toBe('600');
      expect(list(r.headers.get('vary'))).toContain('Origin');
      expect(r.headers.get('www-authenticate')).toBeNull();
    });

    it('tells each path its own methods', async () => {
      const wo = await makeWorkOrder(h());
      const methods = async (path: string, origin = APP) =>
        list((await preflight(h(), path, origin)).headers.get('access-control-allow-methods'));
      expect(await methods(`${M}/work_orders/${wo.id}`, DEV)).toEqual(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']);
      expect(await methods(`${M}/work_orders/${wo.id}/notes`)).toEqual(['GET', 'HEAD', 'POST']);
      expect(await methods(`${M}/notes`)).toEqual(['GET', 'HEAD', 'POST']);
      expect(await methods(`${M}/service_requests/1/work_orders`)).toEqual(['GET', 'HEAD', 'POST']);
      expect(await methods(`${BASE}/authenticate`)).toEqual(['POST']);
      expect(await methods(`${BASE}/openapi.json`)).toEqual(['GET', 'HEAD']);
      expect(await methods(`${BASE}/docs`)).toEqual(['GET', 'HEAD']);
    });

    it('puts Allow-Origin and Expose-Headers on answers, errors included', async () => {
      const wo = await makeWorkOrder(h());
      const origin = { origin: APP };
      expectExposed(await h().request('GET', `${M}/work_orders`, { headers: origin }), APP);
      const created = await h().request('POST', `${M}/work_orders`, { headers: origin, body: WORK_ORDER });
      expect(created.status).toBe(201);
      expectExposed(created, APP);
      const note = await makeNote(h(), wo.id);
      expectExposed(await h().request('GET', `${M}/notes/${note.id}`, { headers: { origin: DEV } }), DEV);
      const unauthorized = await h().request('GET', `${M}/work_orders`, { headers: origin, token: null });
      expect(unauthorized.status).toBe(401);
      expectExposed(unauthorized, APP);
      const missing = await h().request('GET', `${M}/no_such`, { headers: origin });
      expect(missing.status).toBe(404);
      expectExposed(missing, APP);
      const wrongMethod = await h().request('DELETE', `${M}/work_orders`, { headers: origin });
      expect(wrongMethod.status).toBe(405);
      expectExposed(wrongMethod, APP);
      const badAuth = await h().request('POST', AUTHENTICATE, {
        headers: origin,
        token: null,
        body: { api_key: 'mrs_x_y', client_db: 'demo.main', username: 'admin' },
      });
      expect(badAuth.status).toBe(401);
      expectExposed(badAuth, APP);
      expectExposed(await h().request('GET', `${BASE}/openapi.json`, { headers: origin, token: null }), APP);
      expectExposed(await h().request('GET', '/healthz', { headers: origin, token: null }), APP);
    });

    it('an OPTIONS that is not a preflight is routed like any request: 401 first', async () => {
      const r = await h().request('OPTIONS', `${M}/work_orders`, { headers: { origin: APP }, token: null });
      expect(r.status).toBe(401);
      expectExposed(r, APP);
      const signedIn = await h().request('OPTIONS', `${M}/work_orders`, { headers: { origin: APP } });
      expect(signedIn.status).toBe(405);
      expect(signedIn.headers.get('access-control-allow-methods')).toBeNull();
    });

    it('gives an origin that is not listed no Access-Control header at all', async () => {
      const r = await h().request('GET', `${M}/work_orders`, { headers: { origin: EVIL } });
      expect(r.status).toBe(200);
      expect(corsHeaderNames(r)).toEqual([]);
      expect(list(r.headers.get('vary'))).toContain('Origin');
      const pre = await preflight(h(), `${M}/work_orders`, EVIL);
      expect(pre.status).toBe(401);
      expect(corsHeaderNames(pre)).toEqual([]);
      const noOrigin = await h().get(`${M}/work_orders`);
      expect(corsHeaderNames(noOrigin)).toEqual([]);
    });
  },
  { env: { CORS_ORIGINS: `${APP},${DEV}` } },
);

describeEachDatabase(
  'CORS before rate limits',
  (h) => {
    it('answers preflights while the caller is limited, and the 429 carries the CORS headers', async () => {
      let last: Reply | undefined;
      for (let i = 0; i < 4 && last?.status !== 429; i++) last = await h().request('GET', `${M}/work_orders`, { headers: { origin: APP } });
      expect(last!.status).toBe(429);
      expectExposed(last!, APP);
      expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
      let auth: Reply | undefined;
      const body = { api_key: 'mrs_x_y', client_db: 'demo.main', username: 'admin' };
      for (let i = 0; i < 4 && auth?.status !== 429; i++)
        auth = await h().request('POST', AUTHENTICATE, { headers: { origin: APP }, token: null, body });
      expect(auth!.status).toBe(429);
      expectExposed(auth!, APP);
      expect((await preflight(h(), AUTHENTICATE, APP, 'POST')).status).toBe(204);
      expect((await preflight(h(), `${M}/work_orders`)).status).toBe(204);
    });
  },
  { env: { CORS_ORIGINS: APP, RATE_LIMIT_MAX: '2', AUTH_RATE_LIMIT_MAX: '2' } },
);

describeEachDatabase(
  'CORS_ORIGINS=*',
  (h) => {
    it('allows any origin with *', async () => {
      const pre = await preflight(h(), `${M}/work_orders`, EVIL, 'POST');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expectExposed(await h().request('GET', `${M}/work_orders`, { headers: { origin: EVIL } }), '*');
    });
  },
  { env: { CORS_ORIGINS: '*' } },
);

describeEachDatabase('CORS_ORIGINS unset', (h) => {
  it('sends no Access-Control header and answers no preflight', async () => {
    const r = await h().request('GET', `${M}/work_orders`, { headers: { origin: APP } });
    expect(r.status).toBe(200);
    expect(corsHeaderNames(r)).toEqual([]);
    expect(r.headers.get('vary')).toBeNull();
    const pre = await preflight(h(), `${M}/work_orders`);
    expect(pre.status).toBe(401);
    expect(corsHeaderNames(pre)).toEqual([]);
  });
});

describe('the CORS middleware', () => {
  const app = (handler: () => Response) => {
    const a = new Hono();
    a.use(cors({ origins: [APP], basePath: '/b', methodsOf: () => 'GET' }));
    a.get('/b/x', handler);
    a.onError(() => new Response('{"status":500}', { status: 500, headers: { 'content-type': 'application/problem+json' } }));
    return a;
  };

  it('puts its headers on a 500 and on a response whose headers are immutable', async () => {
    const failing = await app(() => {
      throw new Error('boom');
    }).request('/b/x', { headers: { origin: APP } });
    expect(failing.status).toBe(500);
    expect(failing.headers.get('access-control-allow-origin')).toBe(APP);
    expect(failing.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    const immutable = await app(() => Response.redirect('https://app.example/elsewhere', 302)).request('/b/x', {
      headers: { origin: APP },
    });
    expect(immutable.status).toBe(302);
    expect(immutable.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('leaves a preflight outside the base path to the routes', async () => {
    const r = await app(() => new Response('x')).request('/elsewhere', {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(404);
  });
});
