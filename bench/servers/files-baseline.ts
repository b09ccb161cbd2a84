/**
 * Floors of serving attached files, as their own process: on `port`, a bare Hono route streaming
 * a file of a directory (`GET /f/<name>`); on `port + 1`, plain node:http, what HTTP itself costs:
 * `PUT /<name>` streams the body to a file and fsyncs it, `GET /<name>` streams a file back.
 * Usage: node --import tsx bench/servers/files-baseline.ts <port> <directory>
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const port = Number(process.argv[2]);
const dir = process.argv[3]!;
const app = new Hono();
app.get('/f/:name', async (c) => {
  const path = join(dir, c.req.param('name').replace(/[^A-Za-z0-9._-]/g, ''));
  const s = await stat(path);
  const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
  return new Response(body, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(s.size) } });
});
app.get('/healthz', (c) => c.text('ok'));
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });

const nameOf = (url: string | undefined) => join(dir, (url ?? '').slice(1).replace(/[^A-Za-z0-9._-]/g, ''));
createServer((req, res) => {
  const path = nameOf(req.url);
  if (req.method === 'PUT')
    void pipeline(req, createWriteStream(path, { highWaterMark: 1024 * 1024 })).then(async () => {
      const h = await open(path, 'r');
      await h.sync();
      await h.close();
      res.writeHead(201).end();
    });
  else
    void stat(path).then((s) =>
      pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), res.writeHead(200, { 'content-length': s.size })),
    );
}).listen(port + 1, '127.0.0.1');
