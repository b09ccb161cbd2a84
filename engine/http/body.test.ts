import { describe, expect, it } from 'vitest';
import { readJsonBody } from './body.ts';

const request = (body: BodyInit | undefined, headers: Record<string, string> = {}) =>
  new Request('http://x/', { method: 'POST', body, headers, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);

const codeOf = async (req: Request, limit?: number) => {
  const r = await readJsonBody(req, limit);
  return 'error' in r ? r.error.status : r.value;
};

describe('readJsonBody', () => {
  const TYPES: [string | undefined, boolean][] = [
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/merge-patch+json', true],
    [undefined, false],
    ['text/plain', false],
    ['application/jsonx', false],
    ['text/json', false],
    ['multipart/form-data', false],
  ];
  for (const [type, ok] of TYPES) {
    it(`content type ${type ?? '(none)'} is ${ok ? 'read' : '415'}`, async () => {
      expect(await codeOf(request('{"a":1}', type ? { 'content-type': type } : {}))).toEqual(ok ? { a: 1 } : 415);
    });
  }

  it('413 over the limit, by Content-Length or by counting a stream', async () => {
    const json = { 'content-type': 'application/json' };
    expect(await codeOf(request('[1,2,3,4,5]', json), 5)).toBe(413);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('[1,2,'));
        c.enqueue(new TextEncoder().encode('3,4,5]'));
        c.close();
      },
    });
    expect(await codeOf(request(stream, json), 8)).toBe(413);
    expect(await codeOf(request('[1]', json), 3)).toEqual([1]);
  });

  it('400 for malformed JSON, an empty body, or bytes that are not UTF-8', async () => {
    const json = { 'content-type': 'application/json' };
    for (const body of ['{', '', 'nul', '{"a":1}x']) expect(await codeOf(request(body, json))).toBe(400);
    expect(await codeOf(request(new Uint8Array([0x22, 0xc3, 0x28, 0x22]), json))).toBe(400);
  });

  it('415 comes before 413', async () => {
    expect(await codeOf(request('x'.repeat(100), { 'content-type': 'text/plain' }), 10)).toBe(415);
  });
});
