import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Multipart request bodies as the Node server received them, by their Request: busboy reads the
 * Node stream as it is, where the Request's body is that stream made a web stream, which busboy
 * needs turned back (the cost of an upload: BENCHMARKS.md, "Attached files"). Kept by the Node
 * entry only (server/node-server.ts); elsewhere (Bun, app.request()) the Request's body is read.
 */
const bodies = new WeakMap<Request, Readable>();

const MULTIPART = /^multipart\/form-data\s*;/i;

/** Keeps a multipart request's Node body beside its Request (`env`: @hono/node-server's, with `incoming`). */
export function keepNodeBody(req: Request, env: unknown): void {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && MULTIPART.test(incoming.headers['content-type'] ?? '')) bodies.set(req, incoming);
}

/** A request's Node body kept by keepNodeBody, for the one reader that reads it. */
export function takeNodeBody(req: Request): Readable | undefined {
  const body = bodies.get(req);
  bodies.delete(req);
  return body;
}
