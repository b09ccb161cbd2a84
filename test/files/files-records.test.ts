import { expect, it } from 'vitest';
import { expectProblem, makeWorkOrder } from '../support/fixtures.ts';
import { form, send, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

/** A file's metadata is a record (SPEC 13): read, listed, filtered and kept per tenant like any. */
describeEachDatabase("attached files' metadata as records", (h) => {
  it('a metadata read has a strong ETag; If-None-Match is 304 with no body; HEAD has the headers and no body', async () => {
    const wo = await makeWorkOrder(h());
    const at = (await upload(h(), `${M}/work_orders/${wo.id}`, form('pump', 'pump.txt', {}, 'text/plain'))).headers.get('location')!;
    const read = await h().get(at);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const same = await h().get(at, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect((await h().get(at, { 'if-none-match': '"stale"' })).status).toBe(200);
    const head = await h().request('HEAD', at);
    expect([head.status, head.text, head.headers.get('etag')]).toEqual([200, '', etag]);
    // A change of the metadata changes the tag.
    expect((await h().patch(at, { description: 'changed' })).status).toBe(200);
    expect((await h().get(at, { 'if-none-match': etag })).status).toBe(200);
  });

  it('the list: 10 a page by default in id order, filtered by filename, description, mime_type, size and created; deleted ones on $deleted', async () => {
    const wo = await makeWorkOrder(h());
    const files = `${M}/work_orders/${wo.id}/attached_files`;
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await upload(
        h(),
        `${M}/work_orders/${wo.id}`,
        form('x'.repeat(i + 1), `f${i}.txt`, { description: `n${i % 3}` }, 'text/plain'),
      );
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.id);
    }
    const first = await h().get(files);
    expect(first.body.map((f: any) => f.id)).toEqual(ids.slice(0, 10));
    const of = async (query: string) => {
      const r = await h().get(`${files}?${query}&$limit=100`);
      expect(r.status, r.text).toBe(200);
      return r.body.map((f: any) => f.id);
    };
    expect(await of('filename=f3.txt')).toEqual([ids[3]]);
    expect(await of('description=n1')).toEqual([ids[1], ids[4], ids[7], ids[10]]);
    expect(await of('mime_type=text/plain')).toEqual(ids);
    expect(await of('size:gt=10')).toEqual([ids[10], ids[11]]);
    expect(await of(`created=${first.body[0].created}`)).toEqual(ids);
    expectProblem(await h().get(`${files}?sha256:like=x&colour=red`), 400, ['colour']);
    expect((await h().del(`${files}/${ids[0]}`)).status).toBe(204);
    expect(await of('filename=f0.txt')).toEqual([]);
    expect(await of('filename=f0.txt&$deleted=true')).toEqual([ids[0]]);
  });

  it('PATCH keeps a filename of 1-255 characters: longer or empty is 422 naming filename', async () => {
    const wo = await makeWorkOrder(h());
    const at = (await upload(h(), `${M}/work_orders/${wo.id}`, form('x', 'x.txt'))).headers.get('location')!;
    expectProblem(await h().patch(at, { filename: 'a'.repeat(256) }), 422, ['filename']);
    expectProblem(await h().patch(at, { filename: '' }), 422, ['filename']);
    expect((await h().patch(at, { filename: 'b'.repeat(255) })).body.filename).toBe('b'.repeat(255));
  });

  it("a tenant never reaches another's files, even with the same bytes", async () => {
    const other = h().as((await h().login({ clientDb: 'demo.other', username: 'olga' })).token);
    const wo = await makeWorkOrder(h());
    const mine = await upload(h(), `${M}/work_orders/${wo.id}`, form('the same bytes', 'a.txt', {}, 'text/plain'));
    const theirWo = await makeWorkOrder(other);
    const theirs = await upload(other, `${M}/work_orders/${theirWo.id}`, form('the same bytes', 'b.txt', {}, 'text/plain'));
    expect(theirs.body.sha256).toBe(mine.body.sha256);
    expect((await other.get(`${M}/work_orders/${theirWo.id}/attached_files`)).body.map((f: any) => f.filename)).toEqual(['b.txt']);
    const path = mine.headers.get('location')!;
    if (wo.id !== theirWo.id || mine.body.id !== theirs.body.id) {
      expect((await other.get(path)).status).toBe(404);
      expect((await send(other, 'GET', `${path}/content`)).status).toBe(404);
    }
    // Their file gone from their tenant, its bytes still answer here.
    expect((await other.del(theirs.headers.get('location')!)).status).toBe(204);
    expect((await send(h(), 'GET', `${path}/content`)).text).toBe('the same bytes');
  });
});
