/**
 * Reading an upload's multipart body (`npm run bench -- files-multipart`): busboy fed the Node
 * request stream as it is (what `mrs serve` does on Node: adapters/files/node-bodies.ts) against
 * busboy fed the web stream @hono/node-server's Request makes of it, turned back into a Node
 * stream (what other hosts and app.request() take). One @hono/node-server in this process, the
 * same client, BENCH_MULTIPART_MB (default 100) of random bytes per upload, the two in turns
 * (interleaved medians); the file part's bytes are hashed, as the store does, and kept nowhere.
 */
import { serve, type ServerType } from '@hono/node-server';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { busboyMultipart } from '../adapters/files/multipart.ts';
import { fmt, interleavedMedianMs, table } from './support/stats.ts';

const MB = Number(process.env.BENCH_MULTIPART_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHUNK = randomBytes(1024 * 1024);
const BOUNDARY = 'mrs-bench-multipart';

/** The file part's bytes, hashed: the answer's body. */
async function readUpload(req: Request, node: IncomingMessage | undefined): Promise<string> {
  const hash = createHash('sha256');
  for await (const part of busboyMultipart(() => node)(req)) if (part.kind === 'file') for await (const c of part.body) hash.update(c);
  return hash.digest('hex');
}

/** One upload of MB MiB through node:http to `path` (`/node` or `/web`), written from memory. */
function upload(port: number, path: string): Promise<void> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': head.length + MB * CHUNK.length + tail.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const more = () => {
      while (sent < MB) {
        sent++;
        if (!req.write(CHUNK)) return void req.once('drain', more);
      }
      req.end(tail);
    };
    more();
  });
}

export async function run(): Promise<void> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve(
      {
        port: 0,
        hostname: '127.0.0.1',
        fetch: async (req: Request, env: { incoming: unknown }) =>
          new Response(await readUpload(req, new URL(req.url).pathname === '/node' ? (env.incoming as IncomingMessage) : undefined)),
      },
      () => resolve(s),
    );
  });
  try {
    const port = (server.address() as AddressInfo).port;
    const [node, web] = await interleavedMedianMs(
      ROUNDS,
      () => upload(port, '/node'),
      () => upload(port, '/web'),
    );
    const mbps = (ms: number) => fmt(MB / (ms / 1000), 0);
    console.log(
      table([
        [`${MB} MiB multipart upload, median of ${ROUNDS}`, 'MiB/s', 'ms', 'ratio to the web stream'],
        ['busboy fed the web stream of the Request, turned back', mbps(web), fmt(web, 0), '1.00'],
        ['busboy fed the Node request stream', mbps(node), fmt(node, 0), fmt(web / node, 2)],
      ]),
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
