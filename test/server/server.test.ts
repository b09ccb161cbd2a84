import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../server/node-server.ts';
import { describeEachDatabase, M, startHarness } from '../support/harness.ts';
import { expectProblem, WORK_ORDER } from '../support/fixtures.ts';
import { rawRequest } from '../support/raw-socket.ts';

function parseRaw(answer: string) {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { statusLine: lines[0]!, headers, body: rest.join('\r\n\r\n') };
}

describeEachDatabase(
  'the server',
  (h) => {
    it('/healthz answers while the process lives, /readyz while the database answers', async () => {
      const health = await h().get('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      const ready = await h().get('/readyz');
      expect(ready.status, ready.text).toBe(200);
      expect(ready.body).toEqual({ status: 'ready' });
    });

    it('/readyz is 503 with a problem body when the database is gone', async () => {
      const other = await startHarness(h().db);
      try {
        if (h().db === 'sqlite') rmSync(other.dataDir!, { recursive: true, force: true });
        else await other.harness.service.tenants.close();
        expectProblem(await other.harness.get('/readyz'), 503);
        expect((await other.harness.get('/healthz')).status).toBe(200);
      } finally {
        if (h().db === 'sqlite') await other.stop();
        else await other.cleanup();
      }
    });

    describe('over a real socket', () => {
      let l: Listening;
      beforeAll(async () => {
        l = await listen(h().service);
      });
      afterAll(async () => {
        await new Promise<void>((resolve) => l.server.close(() => resolve()));
      });

      it('serves the API', async () => {
        expect(l.port).toBeGreaterThan(0);
        const res = await fetch(`http://127.0.0.1:${l.port}${M}/work_orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...h().authHeaders() },
          body: JSON.stringify(WORK_ORDER),
        });
        expect(res.status).toBe(201);
        expect(res.headers.get('location')).toMatch(new RegExp(`^${M}/work_orders/\\d+$`));
        expect((await fetch(`http://127.0.0.1:${l.port}/healthz`)).status).toBe(200);
      });

      it('answers headers over 16 KiB with 431 and a problem+json body', async () => {
        const answer = parseRaw(
          await rawRequest(l.port, `GET ${M}/work_orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`),
        );
        expect(answer.statusLine).toMatch(/^HTTP\/1\.1 431 /);
        expect(answer.headers.get('content-type')).toBe('application/problem+json');
        expect(JSON.parse(answer.body)).toMatchObject({
          status: 431,
          type: expect.any(String),
          title: expect.any(String),
          detail: expect.any(String),
        });
      });

      it('answers a request line over 16 KiB with 431 and a problem+json body', async () => {
        const answer = parseRaw(await rawRequest(l.port, `GET ${M}/work_orders?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`));
        expect(answer.statusLine).toMatch(/^HTTP\/1\.1 431 /);
        expect(JSON.parse(answer.body)).toMatchObject({ status: 431 });
      });

      it('answers bytes that are not HTTP with 400 and a problem+json body', async () => {
        const answer = parseRaw(await rawRequest(l.port, 'NOT HTTP AT ALL\r\n\r\n'));
        expect(answer.statusLine).toMatch(/^HTTP\/1\.1 400 /);
        expect(JSON.parse(answer.body)).toMatchObject({ status: 400 });
      });
    });
  },
  { env: { PORT: '0' } },
);
