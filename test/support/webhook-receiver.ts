import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** What a receiver got: each request's Standard Webhooks headers and body. */
export interface Received {
  /** The path and query it was sent to. */
  readonly path: string;
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly contentType: string;
  readonly body: string;
  /** The status it answered. */
  readonly status: number;
}

/**
 * A webhook receiver on 127.0.0.1 that answers `status` (200 by default), and can go down
 * (connections refused) and come back on the same port.
 */
export async function startReceiver(port = 0) {
  const received: Received[] = [];
  let status = 200;
  let delayMs = 0;
  let server: Server | undefined;
  const open = (p: number) =>
    new Promise<number>((resolve) => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const h = (name: string) => String(req.headers[name] ?? '');
          received.push({
            path: req.url ?? '',
            id: h('webhook-id'),
            timestamp: h('webhook-timestamp'),
            signature: h('webhook-signature'),
            contentType: h('content-type'),
            body,
            status,
          });
          const answer = status;
          setTimeout(() => res.writeHead(answer).end(), delayMs);
        });
      });
      server.listen(p, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port));
    });
  const boundPort = await open(port);
  const close = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
      server = undefined;
    });
  return {
    url: `http://127.0.0.1:${boundPort}/hook`,
    received,
    /** Requests it acknowledged with a 2xx. */
    acked: () => received.filter((r) => r.status >= 200 && r.status < 300),
    answer(s: number) {
      status = s;
    },
    /** Answers this long after each request arrived. */
    delay(ms: number) {
      delayMs = ms;
    },
    /** Stops listening: deliveries meet a refused connection. */
    down: close,
    up: () => open(boundPort),
    close,
  };
}

/** Checks a delivery with the reference implementation (never the service's own signing code); returns its event. */
export function verified(secret: string, r: Received): any {
  return new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
}

/** Polls `check` until it holds (or fails the test after `ms`): deliveries happen in the background. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
