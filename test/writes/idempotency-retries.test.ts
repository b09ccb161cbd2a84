import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { listen } from '../../server/node-server.ts';
import { describeEachDatabase, M, startHarness } from '../support/harness.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/**
 * The proof: 1,000 POSTs per database over a real socket, as it asks. Half
 * the clients close the socket as soon as the request is written, half once the answer starts
 * to arrive (the write has committed): either way the answer is lost to the client.
 */
const POSTS = 1000;

/** Sends the request and closes the socket without reading the answer. */
function sendAndDrop(port: number, request: string, when: 'written' | 'answering'): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = () => (socket.destroy(), resolve());
    socket.on('error', done);
    socket.on('close', resolve);
    if (when === 'answering') socket.once('data', done);
    socket.write(request, () => {
      if (when === 'written') setImmediate(done);
    });
  });
}

describeEachDatabase(
  'Idempotency-Key retries over a real socket',
  (h) => {
    it(`${POSTS} POSTs whose answers are dropped, retried with the same key, make exactly ${POSTS} records`, async () => {
      const listening = await listen(h().service);
      try {
        const url = `http://127.0.0.1:${listening.port}${M}/work_orders`;
        const before = Number((await h().get(`${M}/work_orders?$limit=1`)).headers.get('x-total'));
        const headers = (key: string) => ({ ...h().authHeaders(), 'content-type': 'application/json', 'idempotency-key': key });
        const body = JSON.stringify(WORK_ORDER);
        const ids = new Set<number>();
        for (let i = 0; i < POSTS; i++) {
          const key = `drop-${i}`;
          const head = Object.entries(headers(key))
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join('');
          const raw = `POST ${M}/work_orders HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
          await sendAndDrop(listening.port, raw, i % 2 === 0 ? 'written' : 'answering');
          // The retry: 409 while the first is still being carried out, then its kept answer (or,
          // when the first never arrived, its own first answer).
          for (;;) {
            const r = await fetch(url, { method: 'POST', headers: headers(key), body });
            if (r.status === 409) {
              await r.arrayBuffer();
              await new Promise((resolve) => setTimeout(resolve, 5));
              continue;
            }
            expect(r.status).toBe(201);
            ids.add(((await r.json()) as { id: number }).id);
            break;
          }
        }
        expect(ids.size).toBe(POSTS);
        expect(Number((await h().get(`${M}/work_orders?$limit=1`)).headers.get('x-total'))).toBe(before + POSTS);
      } finally {
        await new Promise<void>((resolve) => listening.server.close(() => resolve()));
      }
    }, 120_000);

    it('a key held by another process (its claiming transaction still open) is 409; its kept answer is replayed here', async () => {
      // PostgreSQL only: on SQLite a transaction holds the whole database (no request runs beside
      // it), and a second process on the same files is the checkpointer's test.
      if (h().db !== 'postgres') return;
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const name = JSON.stringify(['mrs-idempotency', tenant.key, 'admin', 'elsewhere']);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const other = tenant.db.transaction().execute(async (trx) => {
        expect(await tenant.locks.tryLock(trx, name)).toBe(true);
        locked();
        await held;
      });
      await isLocked;
      try {
        const busy = await h().request('POST', `${M}/work_orders`, { body: WORK_ORDER, headers: { 'idempotency-key': 'elsewhere' } });
        expect(busy.status).toBe(409);
      } finally {
        release();
        await other;
      }
      // A second service on the same database: it sees the first one's kept answer.
      const first = await h().request('POST', `${M}/work_orders`, { body: WORK_ORDER, headers: { 'idempotency-key': 'shared-between' } });
      expect(first.status).toBe(201);
      const s = await startHarness(h().db, { reuse: { databaseUrl: h().service.config.databaseUrl } });
      try {
        const r = await s.harness.request('POST', `${M}/work_orders`, {
          body: WORK_ORDER,
          headers: { 'idempotency-key': 'shared-between' },
        });
        expect(r.status).toBe(201);
        expect(r.headers.get('idempotency-replayed')).toBe('true');
        expect(r.body).toEqual(first.body);
      } finally {
        await s.stop(true);
      }
    });
  },
  { env: { PORT: '0' } },
);
