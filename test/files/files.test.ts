import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { expectProblem, makeWorkOrder } from '../support/fixtures.ts';
import { form, PNG, send, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

describeEachDatabase(
  'attached files',
  (h) => {
    it('an upload is kept with its metadata, listed under its parent and downloaded byte for byte', async () => {
      const wo = await makeWorkOrder(h());
      const bytes = Buffer.concat([PNG, Buffer.alloc(10_000, 7)]);
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form(bytes, 'pump.png', { description: 'the broken pump' }));
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({
        filename: 'pump.png',
        description: 'the broken pump',
        mime_type: 'image/png',
        size: bytes.length,
        sha256: sha(bytes),
        deleted: false,
      });
      expect(r.headers.get('location')).toBe(`${M}/work_orders/${wo.id}/attached_files/${r.body.id}`);
      // The content_url is signed per request: its expiry moves with the clock.
      const { content_url: _url, ...metadata } = r.body;
      const signed = { ...metadata, content_url: expect.stringMatching(/\/content\?\$expires=/) };
      const list = await h().get(`${M}/work_orders/${wo.id}/attached_files`);
      expect(list.status, list.text).toBe(200);
      expect(list.body).toEqual([signed]);
      const read = await h().get(r.headers.get('location')!);
      expect(read.body).toEqual(signed);
      expect(read.headers.get('etag')).toBe(r.headers.get('etag'));
      const content = await send(h(), 'GET', `${r.headers.get('location')}/content`);
      expect(content.status).toBe(200);
      expect(content.bytes.equals(bytes)).toBe(true);
      expect(content.headers.get('content-type')).toBe('image/png');
      expect(content.headers.get('content-length')).toBe(String(bytes.length));
      expect(content.headers.get('etag')).toBe(`"${sha(bytes)}"`);
      expect(content.headers.get('accept-ranges')).toBe('bytes');
      expect(content.headers.get('x-content-type-options')).toBe('nosniff');
      expect(content.headers.get('content-security-policy')).toBe('sandbox');
      expect(content.headers.get('content-disposition')).toBe('inline; filename="pump.png"');
    });

    it('Range gives one range (206), an unsatisfiable one 416, several the whole; If-None-Match 304; HEAD the headers', async () => {
      const wo = await makeWorkOrder(h());
      const bytes = Buffer.from('0123456789abcdefghij');
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form(bytes, 'digits.txt', {}, 'text/plain'));
      const path = `${r.headers.get('location')}/content`;
      const part = await send(h(), 'GET', path, undefined, { range: 'bytes=2-5' });
      expect(part.status).toBe(206);
      expect(part.text).toBe('2345');
      expect(part.headers.get('content-range')).toBe('bytes 2-5/20');
      expect(part.headers.get('content-length')).toBe('4');
      const past = await send(h(), 'GET', path, undefined, { range: 'bytes=20-' });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe('bytes */20');
      const several = await send(h(), 'GET', path, undefined, { range: 'bytes=0-1,4-5' });
      expect(several.status).toBe(200);
      expect(several.text).toBe(bytes.toString());
      const same = await send(h(), 'GET', path, undefined, { 'if-none-match': `"${sha(bytes)}"` });
      expect(same.status).toBe(304);
      const head = await send(h(), 'HEAD', path);
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe('20');
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe('text/plain');
    });

    it('what a browser would run is always an attachment; a non-ASCII filename has filename*', async () => {
      const wo = await makeWorkOrder(h());
      const html = await upload(
        h(),
        `${M}/work_orders/${wo.id}`,
        form('<html><script>alert(1)</script></html>', 'x.html', {}, 'text/html'),
      );
      expect(html.body.mime_type).toBe('text/html');
      const c = await send(h(), 'GET', `${html.headers.get('location')}/content`);
      expect(c.headers.get('content-disposition')).toBe('attachment; filename="x.html"');
      const svg = await upload(
        h(),
        `${M}/work_orders/${wo.id}`,
        form('<svg xmlns="http://www.w3.org/2000/svg"></svg>', 'a.svg', {}, 'image/svg+xml'),
      );
      expect((await send(h(), 'GET', `${svg.headers.get('location')}/content`)).headers.get('content-disposition')).toMatch(/^attachment;/);
      const u = await upload(h(), `${M}/work_orders/${wo.id}`, form('x', 'Pumpe ä.txt', {}, 'text/plain'));
      expect((await send(h(), 'GET', `${u.headers.get('location')}/content`)).headers.get('content-disposition')).toBe(
        `inline; filename="Pumpe _.txt"; filename*=UTF-8''Pumpe%20%C3%A4.txt`,
      );
    });

    it('filename: the last path segment, control characters stripped; a part with none is 422 naming data', async () => {
      const wo = await makeWorkOrder(h());
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form('x', '../../etc/pa\u0007sswd'));
      expect(r.status, r.text).toBe(201);
      expect(r.body.filename).toBe('passwd');
      const noData = new FormData();
      noData.append('description', 'no file');
      expectProblem(await upload(h(), `${M}/work_orders/${wo.id}`, noData), 422, ['data']);
      const plain = new FormData();
      plain.append('data', 'just text');
      expectProblem(await upload(h(), `${M}/work_orders/${wo.id}`, plain), 422, ['data']);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files`)).body).toHaveLength(1);
    });

    it('a body that is not multipart is 415; a parent missing or deleted 404; a file of another parent 404', async () => {
      const wo = await makeWorkOrder(h());
      const other = await makeWorkOrder(h());
      expect((await h().post(`${M}/work_orders/${wo.id}/attached_files`, { filename: 'x' })).status).toBe(415);
      expect((await upload(h(), `${M}/work_orders/999999`, form('x', 'x.txt'))).status).toBe(404);
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form('x', 'x.txt'));
      expect((await h().get(`${M}/work_orders/${other.id}/attached_files/${r.body.id}`)).status).toBe(404);
      expect((await send(h(), 'GET', `${M}/work_orders/${other.id}/attached_files/${r.body.id}/content`)).status).toBe(404);
      expect((await h().get(`${M}/attached_files`)).status).toBe(404);
      expect((await h().get(`${M}/notes/1/attached_files`)).status).toBe(404);
      await h().del(`${M}/work_orders/${wo.id}`);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files`)).status).toBe(404);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files/${r.body.id}`)).status).toBe(404);
    });

    it('PATCH changes filename and description only; DELETE is a soft delete; the feed has their events', async () => {
      const wo = await makeWorkOrder(h());
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form('x', 'x.txt'));
      const at = r.headers.get('location')!;
      const p = await h().patch(at, { description: 'after repair', filename: 'dir/y.txt' });
      expect(p.status, p.text).toBe(200);
      expect(p.body).toMatchObject({ description: 'after repair', filename: 'y.txt', size: 1 });
      expectProblem(await h().patch(at, { size: 5, sha256: 'x' }), 422, ['size', 'sha256']);
      const stale = await h().request('DELETE', at, { headers: { 'if-match': r.headers.get('etag')! } });
      expect(stale.status).toBe(412);
      expect((await h().del(at)).status).toBe(204);
      expect((await h().get(at)).status).toBe(404);
      expect((await h().get(`${at}?$deleted=true`)).body.deleted).toBe(true);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files`)).body).toEqual([]);
      const feed = await h().get(`/v4_server/external/v1/events?$limit=1000&collection=attached_files`);
      const mine = feed.body.filter((e: any) => e.collection === 'attached_files' && e.id === r.body.id);
      expect(mine.map((e: any) => e.op)).toEqual(['create', 'update', 'delete']);
      expect(mine[0].record.work_orders_id).toBe(wo.id);
    });

    it('PUT content replaces the bytes under If-Match', async () => {
      const wo = await makeWorkOrder(h());
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form('first', 'x.txt', {}, 'text/plain'));
      const at = r.headers.get('location')!;
      const stale = await send(h(), 'PUT', `${at}/content`, 'second', { 'content-type': 'text/plain', 'if-match': '"999"' });
      expect(stale.status).toBe(412);
      const put = await send(h(), 'PUT', `${at}/content`, 'second!', { 'content-type': 'text/plain', 'if-match': r.headers.get('etag')! });
      expect(put.status, put.text).toBe(200);
      expect(put.body).toMatchObject({ size: 7, sha256: sha('second!'), filename: 'x.txt' });
      expect((await send(h(), 'GET', `${at}/content`)).text).toBe('second!');
    });

    it('a batch refuses files: 400 naming the operation, nothing done', async () => {
      const wo = await makeWorkOrder(h());
      const r = await h().post('/v4_server/external/v1/batch', {
        operations: [
          { method: 'PATCH', path: `/maintenance/work_orders/${wo.id}`, body: { priority: 9 } },
          { method: 'POST', path: `/maintenance/work_orders/${wo.id}/attached_files`, body: { filename: 'x' } },
        ],
      });
      expectProblem(r, 400, ['operations[1].path']);
      expect(r.body.errors[0].operation).toBe(1);
      expect((await h().get(`${M}/work_orders/${wo.id}`)).body.priority).toBe(wo.priority);
    });

    it('/metrics counts uploads and downloads and the bytes stored, per tenant', async () => {
      const wo = await makeWorkOrder(h());
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form('counted', 'c.txt'));
      await send(h(), 'GET', `${r.headers.get('location')}/content`);
      const text = (await h().request('GET', '/metrics', { token: null })).text;
      const value = (name: string) => Number(new RegExp(`^${name}\\{tenant="demo.main"\\} (\\d+)`, 'm').exec(text)?.[1]);
      expect(value('mrs_file_uploads_total')).toBeGreaterThanOrEqual(1);
      expect(value('mrs_file_downloads_total')).toBeGreaterThanOrEqual(1);
      expect(value('mrs_files_stored_bytes')).toBeGreaterThanOrEqual(7);
    });

    it('past FILE_MAX_BYTES: 413 and nothing kept', async () => {
      const wo = await makeWorkOrder(h());
      const r = await upload(h(), `${M}/work_orders/${wo.id}`, form(Buffer.alloc(300_001, 1), 'big.bin'));
      expect(r.status, r.text).toBe(413);
      expect((await h().get(`${M}/work_orders/${wo.id}/attached_files`)).body).toEqual([]);
    });
  },
  { env: { FILE_MAX_BYTES: '300000' } },
);
