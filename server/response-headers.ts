import type { Context } from 'hono';

/** Sets a header on the answer, copying a response whose headers are immutable (one made by fetch). */
export function setResponseHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}
