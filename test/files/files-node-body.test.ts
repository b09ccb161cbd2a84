import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busboyMultipart } from '../../adapters/files/multipart.ts';
import { keepNodeBody, takeNodeBody } from '../../adapters/files/node-bodies.ts';
import { listen, type Listening } from '../../server/node-server.ts';
import { makeWorkOrder } from '../support/fixtures.ts';
import { send } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

/**
 * On Node, a multipart upload is read from the server's own Node stream (adapters/files/node-bodies.ts),
 * not from the web stream its Request would make of it: held here to the Request's body, which
 * app.request() and other hosts read.
 */
const BOUNDARY = 'mrs-node-body-boundary';
const TYPE = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** A multipart body written by hand: parts as given, each with its head; the closing boundary unless `end` is false. */
function multipart(parts: { head: string; bytes: Buffer }[], end = true): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [Buffer.from(`--${BOUNDARY}\r\n${p.head}\r\n\r\n`, 'latin1'), p.bytes, Buffer.from('\r\n')]),
    Buffer.from(end ? `--${BOUNDARY}--\r\n` : ''),
  ]);
}
const data = (bytes: Buffer, filename = 'pump.bin') => ({
  head: `Content-Disposition: form-data; name="data"; filename="${filename}"\r\nContent-Type: application/octet-stream`,
  bytes,
});
const field = (name: string, value: string) => ({ head: `Content-Disposition: form-data; name="${name}"`, bytes: Buffer.from(value) });

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const MAX = 1024 * 1024;

describe('the Node body of a multipart request', () => {
  it('is kept for a multipart request only, and taken once', () => {
    const req = new Request('http://x/');
    const incoming = Object.assign(Readable.from([]), { headers: { 'content-type': TYPE['content-type'] } });
    keepNodeBody(req, { incoming });
    expect(takeNodeBody(req)).toBe(incoming);
    expect(takeNodeBody(req)).toBeUndefined();
    const json = new Request('http://x/');
    keepNodeBody(json, { incoming: Object.assign(Readable.from([]), { headers: { 'content-type': 'application/json' } }) });
    expect(takeNodeBody(json)).toBeUndefined();
    keepNodeBody(json, undefined);
    expect(takeNodeBody(json)).toBeUndefined();
  });

  it("is what busboy reads when given: the Request's own body is never touched", async () => {
    const bytes = randomBytes(300_000);
    const body = multipart([field('description', 'the pump'), data(bytes)]);
    const untouchable = new ReadableStream({
      pull() {
        throw new Error('the web body was read');
      },
    });
    const req = new Request('http://x/', { method: 'POST', headers: TYPE, body: untouchable, duplex: 'half' } as RequestInit);
    const parts: unknown[] = [];
    for await (const part of busboyMultipart(() => Readable.from([body.subarray(0, 1000), body.subarray(1000)]))(req)) {
      if (part.kind === 'field') parts.push([part.name, part.value]);
      else {
        const chunks: Uint8Array[] = [];
        for await (const c of part.body) chunks.push(c);
        parts.push([part.name, part.filename, sha(Buffer.concat(chunks))]);
      }
    }
    expect(parts).toEqual([
      ['description', 'the pump'],
      ['data', 'pump.bin', sha(bytes)],
    ]);
  });

  it('ends a file part cut short with an error to its reader, who may start reading late, on either body', async () => {
    const body = multipart([data(randomBytes(5000))], false);
    for (const node of [true, false]) {
      const req = new Request('http://x/', { method: 'POST', headers: TYPE, body: new Uint8Array(body) });
      const read = busboyMultipart(() => (node ? Readable.from([body]) : undefined));
      const parts = async () => {
        for await (const part of read(req)) {
          await new Promise((r) => setTimeout(r, 50));
          if (part.kind === 'file') for await (const _ of part.body);
        }
      };
      await expect(parts()).rejects.toMatchObject({ code: 'invalid-request', detail: expect.stringMatching(/cut short/) });
    }
  });
});

describe('a Node body that breaks off (the client gone)', () => {
  const req = () => new Request('http://x/', { method: 'POST', headers: TYPE, body: new Uint8Array(0) });
  const readAll = async (body: Readable) => {
    for await (const part of busboyMultipart(() => body)(req())) if (part.kind === 'file') for await (const _ of part.body);
  };

  it('mid-file: the file part ends with the error, so its reader stops', { timeout: 10_000 }, async () => {
    const body = new Readable({ read() {} });
    body.push(multipart([data(randomBytes(200_000))], false).subarray(0, 100_000));
    setTimeout(() => body.destroy(new Error('aborted')), 50);
    await expect(readAll(body)).rejects.toMatchObject({ code: 'invalid-request', detail: expect.stringMatching(/aborted/) });
  });

  it('before it was read: the reader stops at once', { timeout: 10_000 }, async () => {
    const body = new Readable({ read() {} });
    body.on('error', () => {});
    body.destroy(new Error('aborted'));
    await new Promise((r) => setImmediate(r));
    await expect(readAll(body)).rejects.toMatchObject({ code: 'invalid-request', detail: expect.stringMatching(/aborted/) });
  });
});

describeEachDatabase(
  'uploads over a real socket, read from the Node body',
  (h) => {
    let l: Listening;
    let files: string;
    beforeAll(async () => {
      l = await listen(h().service);
      files = `${M}/work_orders/${(await makeWorkOrder(h())).id}/attached_files`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    });

    /** The same body posted over the socket and through app.request(): status and JSON of each. */
    async function both(body: Buffer): Promise<{ status: number; body: any }[]> {
      const bytes = new Uint8Array(body);
      const res = await fetch(`http://127.0.0.1:${l.port}${files}`, {
        method: 'POST',
        headers: { ...TYPE, ...h().authHeaders() },
        body: bytes,
      });
      const socket = { status: res.status, body: await res.json() };
      const web = await send(h(), 'POST', files, bytes, TYPE);
      return [socket, { status: web.status, body: web.body }];
    }
    const listed = async () => (await h().get(`${files}?$deleted=true&$limit=1000`)).body.length as number;

    it('keeps every file byte for byte, as the web body does', async () => {
      for (const size of [1, 70_000, MAX + 17]) {
        const bytes = randomBytes(size);
        const answers = await both(multipart([data(bytes, `f${size}.bin`), field('description', `${size} bytes`)]));
        for (const a of answers) {
          expect(a.status, JSON.stringify(a.body)).toBe(201);
          expect(a.body).toMatchObject({ filename: `f${size}.bin`, description: `${size} bytes`, size, sha256: sha(bytes) });
        }
        const content = await fetch(`http://127.0.0.1:${l.port}${files}/${answers[0]!.body.id}/content`, { headers: h().authHeaders() });
        expect(sha(Buffer.from(await content.arrayBuffer()))).toBe(sha(bytes));
      }
    });

    it('refuses what the web body refuses, with the same problem, keeping nothing; the socket still answers', async () => {
      const before = await listed();
      const cases: [Buffer, number][] = [
        [multipart([data(randomBytes(5000))], false), 400],
        [multipart([field('description', 'no file')]), 422],
        [multipart([data(randomBytes(10)), field('colour', 'red')]), 422],
        [multipart([data(randomBytes(2 * MAX))]), 413],
      ];
      for (const [body, status] of cases) {
        const [socket, web] = (await both(body)) as [{ status: number; body: any }, { status: number; body: any }];
        expect(socket.status, JSON.stringify(socket.body)).toBe(status);
        expect(socket.body).toEqual(web.body);
      }
      expect(await listed()).toBe(before);
      expect((await fetch(`http://127.0.0.1:${l.port}/healthz`)).status).toBe(200);
    });
  },
  { env: { PORT: '0', FILE_MAX_BYTES: String(MAX * 1.5) } },
);
