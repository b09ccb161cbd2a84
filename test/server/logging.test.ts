import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logging.ts';
import { AUTHENTICATE, login, makeKey } from '../support/auth.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { DATABASES, M, type Harness } from '../support/harness.ts';
import { startOwnService } from '../support/own-service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A service whose logger writes into `lines`, one parsed JSON object per line. */
async function logged(db: (typeof DATABASES)[number], level: 'info' | 'warn' = 'info') {
  const lines: Record<string, any>[] = [];
  const raw: string[] = [];
  const logger = createLogger(level, {
    write(s: string) {
      raw.push(s);
      for (const line of s.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    },
  });
  const started = await startOwnService(db, {}, { logger });
  lines.length = 0; // the set-up's own /authenticate call
  raw.length = 0;
  return { ...started, lines, raw };
}

for (const db of DATABASES) {
  describe(`request logs [${db}]`, () => {
    let s: Awaited<ReturnType<typeof logged>>;
    let h: Harness;
    beforeAll(async () => {
      s = await logged(db);
      h = s.harness;
    });
    afterAll(async () => s?.stop());

    it('are one JSON line per request: id, method, route pattern, status, latency', async () => {
      const wo = await makeWorkOrder(h);
      s.lines.length = 0;
      const r = await h.get(`${M}/work_orders/${wo.id}`, { 'x-request-id': 'abc-123.x:y_z' });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-request-id')).toBe('abc-123.x:y_z');
      expect(s.lines).toHaveLength(1);
      expect(s.lines[0]).toMatchObject({
        level: 30,
        msg: 'request',
        reqId: 'abc-123.x:y_z',
        method: 'GET',
        route: `${M}/work_orders/{id}`,
        status: 200,
      });
      expect(typeof s.lines[0]!.latencyMs).toBe('number');
      expect(s.lines[0]!.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    });

    it('make a new request id when none or an unusable one is sent, and echo it on errors too', async () => {
      s.lines.length = 0;
      const sent = [undefined, '', 'x'.repeat(129), 'a b', 'a\u00e9', '<script>'];
      const ids: string[] = [];
      for (const id of sent) {
        const r = await h.request('GET', `${M}/nothing_here`, { headers: id === undefined ? {} : { 'x-request-id': id } });
        expect(r.status).toBe(404);
        const echoed = r.headers.get('x-request-id')!;
        expect(echoed).toMatch(UUID);
        ids.push(echoed);
      }
      expect(new Set(ids).size).toBe(sent.length);
      expect(s.lines.map((l) => l.reqId)).toEqual(ids);
      expect(s.lines.every((l) => l.route === 'unmatched' && l.status === 404)).toBe(true);
    });

    it("echo the request id on every kind of answer, the engine's own errors included", async () => {
      const wo = await makeWorkOrder(h);
      const answers = [
        await h.get(`${M}/work_orders/${wo.id}`, { 'x-request-id': 'id-1' }), // 200
        await h.get(`${M}/work_orders?$limit=0`, { 'x-request-id': 'id-2' }), // 400
        await h.get(`${M}/work_orders/99999999`, { 'x-request-id': 'id-3' }), // 404 from the engine
        await h.request('GET', `${M}/work_orders`, { headers: { 'x-request-id': 'id-4' }, token: 'not-a-token' }), // 401
        await h.request('DELETE', `${M}/work_orders`, { headers: { 'x-request-id': 'id-5' } }), // 405
        await h.get('/healthz', { 'x-request-id': 'id-6' }), // outside the engine
        await h.request('POST', AUTHENTICATE, { headers: { 'x-request-id': 'id-7', 'content-type': 'application/json' }, raw: '{' }), // 400 from the auth route
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 400, 404, 401, 405, 200, 400]);
      expect(answers.map((r) => r.headers.get('x-request-id'))).toEqual(['id-1', 'id-2', 'id-3', 'id-4', 'id-5', 'id-6', 'id-7']);
    });

    it('name the tenant and user of every request that proved who it is, and nobody otherwise', async () => {
      const other = await login(h.service, { clientDb: 'acme.north', username: 'olga', roles: ['reader'] });
      s.lines.length = 0;
      await h.get(`${M}/work_orders`);
      await h.as(other.token).get(`${M}/work_orders`);
      await h.as(other.token).post(`${M}/work_orders`, {}); // 403: proven, but not allowed
      await h.as('not-a-token').get(`${M}/work_orders`);
      await h.get('/healthz');
      const body = (username: string) => ({ api_key: other.key, client_db: 'acme.north', username });
      await h.request('POST', AUTHENTICATE, { token: null, body: body('olga') });
      await h.request('POST', AUTHENTICATE, { token: null, body: body('someone_else') });
      const who = s.lines.map((l) => [l.status, l.tenant, l.user]);
      expect(who).toEqual([
        [200, 'demo.main', 'admin'],
        [200, 'acme.north', 'olga'],
        [403, 'acme.north', 'olga'],
        [401, undefined, undefined],
        [200, undefined, undefined],
        [200, 'acme.north', 'olga'],
        [401, undefined, undefined],
      ]);
      expect(s.raw.join('')).not.toContain(other.key);
    });

    it('never hold tokens, API keys, cursors, query strings or raw paths', async () => {
      s.lines.length = 0;
      s.raw.length = 0;
      const { key } = await makeKey(h.service, 'demo.main', 'admin');
      const auth = await h.service.app.request(AUTHENTICATE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
      });
      expect(auth.status).toBe(200);
      const token = ((await auth.json()) as { access_token: string }).access_token;
      const list = await h.as(token).get(`${M}/work_orders?status=secret-filter-value`);
      const cursor = list.headers.get('x-cursor')!;
      await h.as(token).get(`${M}/work_orders?$cursor=${cursor}&$page=2`);
      await h.as('not.a-valid.token-xyz').get(`${M}/work_orders`);
      await h.get(`${M}/secret-path-segment/1`);
      const text = s.raw.join('');
      expect(s.lines).toHaveLength(5);
      for (const secret of [key, token, h.token!, cursor, 'secret-filter-value', 'not.a-valid.token-xyz', 'secret-path-segment'])
        expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain('authorization');
      expect(s.lines.map((l) => [l.route, l.status])).toEqual([
        [AUTHENTICATE, 200],
        [`${M}/work_orders`, 200],
        [`${M}/work_orders`, 200],
        [`${M}/work_orders`, 401],
        ['unmatched', 404],
      ]);
    });
  });
}

describe('LOG_LEVEL', () => {
  it('warn leaves out the request lines of answered requests', async () => {
    const s = await logged('sqlite', 'warn');
    try {
      expect((await s.harness.get(`${M}/work_orders`)).status).toBe(200);
      expect((await s.harness.get(`${M}/nothing`)).status).toBe(404);
      expect(s.lines).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});
