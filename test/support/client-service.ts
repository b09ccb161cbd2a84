import type { Server as HttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { listen } from '../../server/node-server.ts';
import { createClient, type ClientOptions, type Schema } from '../../client/index.ts';
import { makeKey } from './auth.ts';
import { BASE, startHarness, type DatabaseName, type Harness, type StartOptions } from './harness.ts';

export interface Served {
  readonly harness: Harness;
  /** `http://127.0.0.1:<port>/v4_server/external/v1` */
  readonly baseUrl: string;
  readonly port: number;
  /** admin of demo.main */
  readonly apiKey: { key: string; clientDb: string; username: string };
  client<S extends Schema = {}>(options?: Partial<ClientOptions>): ReturnType<typeof createClient<S>>;
}

/** The service of a fresh database served on a real socket, for the client's tests (no mock of the server). */
export function servedService(db: DatabaseName, options: StartOptions = {}): () => Served {
  let started: Awaited<ReturnType<typeof startHarness>>;
  let stopServing: () => Promise<void>;
  let served: Served;
  beforeAll(async () => {
    started = await startHarness(db, { ...options, env: { PORT: '0', ...options.env } });
    const listening = await listen(started.harness.service);
    const server = listening.server as HttpServer;
    stopServing = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
    const { key } = await makeKey(started.harness.service, 'demo.main', 'admin');
    const baseUrl = `http://127.0.0.1:${listening.port}${BASE}`;
    const apiKey = { key, clientDb: 'demo.main', username: 'admin' };
    served = {
      harness: started.harness,
      baseUrl,
      port: listening.port,
      apiKey,
      client: (more = {}) => createClient({ baseUrl, apiKey, ...more }),
    };
  }, 60_000);
  afterAll(async () => {
    await stopServing?.();
    await started?.stop();
  });
  return () => served;
}

/** What the proxy does with one request: pass it, reset before it reaches the server, or after the server answered. */
export type Fate = 'pass' | 'reset-before' | 'reset-after';

/**
 * A TCP proxy in front of the service that resets connections as a flaky network does: each
 * request (a chunk from the client) gets a fate; `dropAll()` resets every open connection.
 */
export async function resettingProxy(port: number, fate: () => Fate = () => 'pass') {
  const open = new Set<Socket>();
  const counts = { pass: 0, 'reset-before': 0, 'reset-after': 0, dropped: 0 };
  const server: Server = createServer((client) => {
    // No Nagle delay on either side: a request or answer forwarded in two writes would wait for an ACK.
    const upstream = connect({ port, host: '127.0.0.1', noDelay: true });
    client.setNoDelay(true);
    open.add(client);
    let resetOnAnswer = false;
    const reset = () => {
      open.delete(client);
      client.resetAndDestroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      const f = fate();
      counts[f]++;
      if (f === 'reset-before') return reset();
      if (f === 'reset-after') resetOnAnswer = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (resetOnAnswer) return reset();
      client.write(chunk);
    });
    const end = () => (open.delete(client), client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    counts,
    /** Connections open now. */
    get open() {
      return open.size;
    },
    /** Resets every connection open now (a stream among them). */
    dropAll() {
      for (const socket of [...open]) {
        counts.dropped++;
        open.delete(socket);
        socket.resetAndDestroy();
      }
    },
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), [...open].forEach((s) => s.destroy()))),
  };
}
