import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { defineResource, string } from '../../engine/define.ts';
import { useCli } from '../support/cli.ts';
import { expectProblem } from '../support/fixtures.ts';
import { form, PNG, send, upload } from '../support/files.ts';
import { describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';

const inspections = defineResource({
  name: 'inspections',
  fields: { place: string({ required: true }) },
  files: { types: ['image/*', 'application/pdf'] },
});

/** Every file under the service's DATA_DIR/files, relative to it: stored bytes and unfinished writes alike. */
function storedFiles(h: Harness): string[] {
  const walk = (at: string): string[] =>
    readdirSync(join(rootOf(h), at), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(at, e.name)) : [join(at, e.name)],
    );
  try {
    return walk('').sort();
  } catch {
    return [];
  }
}

const rootOf = (h: Harness) => join(h.service.config.dataDir, 'files');

const BOUNDARY = 'mrs-bad-input-boundary';

/** A multipart body written by hand, for what FormData cannot send: a cut-short body, a raw filename. */
function rawForm(parts: string[], end = true): { body: Buffer; headers: Record<string, string> } {
  const text = parts.map((p) => `--${BOUNDARY}\r\n${p}\r\n`).join('') + (end ? `--${BOUNDARY}--\r\n` : '');
  return { body: Buffer.from(text, 'latin1'), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } };
}

const filePart = (filename: string, content: string, type = 'application/octet-stream') =>
  `Content-Disposition: form-data; name="data"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n${content}`;

/** An ELF executable's leading bytes: what file-type names application/x-elf. */
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120, 0)]);

describeEachDatabase(
  'attached files: bad input is a clear 4xx, and nothing is kept',
  (h) => {
    let parent: string;
    const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));
    beforeAll(async () => {
      const made = await h().post(`${M}/inspections`, { place: 'pump house' });
      expect(made.status, made.text).toBe(201);
      parent = `${M}/inspections/${made.body.id}`;
    });

    /** The parent has no files and the store no more bytes than before: a refusal kept nothing. */
    async function expectNothingKept(before: string[]) {
      expect((await h().get(`${parent}/attached_files?$deleted=true`)).body).toEqual([]);
      expect(storedFiles(h())).toEqual(before);
    }

    it('a multipart body cut short mid-file: 400, nothing kept', async () => {
      const before = storedFiles(h());
      const whole = rawForm([filePart('pump.png', PNG.toString('latin1') + 'x'.repeat(5000), 'image/png')]);
      for (const cut of [whole.body.length - 100, 200, 60]) {
        const r = await send(h(), 'POST', `${parent}/attached_files`, new Uint8Array(whole.body.subarray(0, cut)), whole.headers);
        expectProblem(r, 400);
      }
      await expectNothingKept(before);
    });

    it('a body cut short after its file part: 400, no file; the bytes stored are unreferenced, and the sweep removes them', async () => {
      const before = storedFiles(h());
      const whole = rawForm([filePart('pump.png', PNG.toString('latin1') + 'y'.repeat(5000), 'image/png')]);
      expectProblem(
        await send(h(), 'POST', `${parent}/attached_files`, new Uint8Array(whole.body.subarray(0, whole.body.length - 3)), whole.headers),
        400,
      );
      expect((await h().get(`${parent}/attached_files?$deleted=true`)).body).toEqual([]);
      const old = new Date(Date.now() - 2 * 3_600_000);
      for (const f of storedFiles(h())) if (!before.includes(f)) utimesSync(join(rootOf(h()), f), old, old);
      const swept = await mrs('files', 'sweep');
      expect(swept.code, swept.err).toBe(0);
      await expectNothingKept(before);
    });

    it('a data part without a filename, or a filename that is only a path or control characters: 422, nothing kept', async () => {
      const before = storedFiles(h());
      const plain = rawForm([`Content-Disposition: form-data; name="data"\r\n\r\n${PNG.toString('latin1')}`]);
      expectProblem(await send(h(), 'POST', `${parent}/attached_files`, new Uint8Array(plain.body), plain.headers), 422, ['data']);
      for (const name of ['../', '..', '\u0001\u0002', '../..\u0007/ ']) {
        const r = rawForm([filePart(name, PNG.toString('latin1'), 'image/png')]);
        expectProblem(await send(h(), 'POST', `${parent}/attached_files`, new Uint8Array(r.body), r.headers), 422, ['filename']);
      }
      await expectNothingKept(before);
    });

    it('a 0-byte file: 422 naming data, nothing kept', async () => {
      const before = storedFiles(h());
      expectProblem(await upload(h(), parent, form(Buffer.alloc(0), 'empty.png', {}, 'image/png')), 422, ['data']);
      await expectNothingKept(before);
    });

    it('a declared image/png that is an executable: 415, nothing kept', async () => {
      const before = storedFiles(h());
      expectProblem(await upload(h(), parent, form(ELF, 'pump.png', {}, 'image/png')), 415);
      const mz = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0)]);
      expectProblem(await upload(h(), parent, form(mz, 'pump.png', {}, 'image/png')), 415);
      await expectNothingKept(before);
    });

    it('a filename with ../ and control characters is kept as its last segment, without them (SPEC 13)', async () => {
      const r = await upload(h(), parent, form(PNG, '../../etc/\u0007pu\u001bmp\u0000.png', {}, 'image/png'));
      expect(r.status, r.text).toBe(201);
      expect(r.body.filename).toBe('pump.png');
      expect((await send(h(), 'GET', `${r.headers.get('location')}/content`)).headers.get('content-disposition')).toBe(
        'inline; filename="pump.png"',
      );
      expect((await h().del(r.headers.get('location')!)).status).toBe(204);
    });

    it('a Range past the end is 416; a Range list is answered whole (SPEC 13); a malformed one whole', async () => {
      const r = await upload(h(), parent, form(PNG, 'ranges.png', {}, 'image/png'));
      const at = `${r.headers.get('location')}/content`;
      for (const range of [`bytes=${PNG.length}-`, `bytes=${PNG.length + 100}-${PNG.length + 200}`, 'bytes=-0']) {
        const past = await send(h(), 'GET', at, undefined, { range });
        expectProblem(past, 416);
        expect(past.headers.get('content-range')).toBe(`bytes */${PNG.length}`);
      }
      for (const range of ['bytes=0-1,3-4', 'bytes=0-1, 5-', 'bytes=x-y', 'lines=1-2']) {
        const whole = await send(h(), 'GET', at, undefined, { range });
        expect(whole.status, range).toBe(200);
        expect(whole.bytes.equals(PNG), range).toBe(true);
      }
      expect((await h().del(r.headers.get('location')!)).status).toBe(204);
    });

    it('Idempotency-Key on upload: the same bytes again replay the answer and keep one file; other bytes under the key are 422', async () => {
      const key = { 'idempotency-key': 'upload-pump-photo-1' };
      const bytes = Buffer.concat([PNG, Buffer.from('the pump, once')]);
      const first = await upload(h(), parent, form(bytes, 'pump.png', { description: 'once' }), key);
      expect(first.status, first.text).toBe(201);
      const again = await upload(h(), parent, form(bytes, 'pump.png', { description: 'once' }), key);
      expect(again.status, again.text).toBe(201);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      expect(again.body.id).toBe(first.body.id);
      const other = Buffer.concat([PNG, Buffer.from('the pump, twice')]);
      expectProblem(await upload(h(), parent, form(other, 'pump.png', { description: 'once' }), key), 422);
      const listed = (await h().get(`${parent}/attached_files`)).body;
      expect(listed.map((f: { id: number }) => f.id)).toEqual([first.body.id]);
      expect((await send(h(), 'GET', `${first.headers.get('location')}/content`)).bytes.equals(bytes)).toBe(true);
      expect((await h().del(first.headers.get('location')!)).status).toBe(204);
    });

    it('random multipart bodies get a handled answer; what is not 201 keeps nothing, what is 201 reads back byte for byte', async () => {
      const before = (await h().get(`${parent}/attached_files?$deleted=true&$limit=1000`)).body.length;
      const name = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '../', 'a/b\\c.png', '\u0000.png'));
      const part = fc.oneof(
        fc
          .tuple(name, fc.uint8Array({ maxLength: 300 }))
          .map(([n, b]) => filePart(n.replace(/["\r\n]/g, ''), Buffer.from(b).toString('latin1'))),
        fc.string({ unit: 'binary', maxLength: 60 }).map((v) => `Content-Disposition: form-data; name="description"\r\n\r\n${v}`),
        fc.string({ maxLength: 80 }),
      );
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(part, { maxLength: 3 }), fc.boolean(), fc.nat(400), async (parts, end, cut) => {
          const raw = rawForm(parts, end);
          const body = cut > 0 && cut < raw.body.length ? raw.body.subarray(0, cut) : raw.body;
          const r = await send(h(), 'POST', `${parent}/attached_files`, new Uint8Array(body), raw.headers);
          const context = `${JSON.stringify(body.toString('latin1'))} -> ${r.status} ${r.text.slice(0, 200)}`;
          expect([201, 400, 413, 415, 422].includes(r.status), context).toBe(true);
          if (r.status !== 201) {
            expect(r.headers.get('content-type'), context).toMatch(/^application\/problem\+json/);
            return;
          }
          accepted++;
          const content = await send(h(), 'GET', `${r.headers.get('location')}/content`);
          expect(content.bytes.length, context).toBe(r.body.size);
        }),
        { numRuns: 120 },
      );
      expect((await h().get(`${parent}/attached_files?$deleted=true&$limit=1000`)).body.length).toBe(before + accepted);
    });
  },
  { resources: [inspections] },
);

describeEachDatabase('attached files: 50 uploads at once by one key beyond its rate limit', (h) => {
  it('each call past the limit is 429 and keeps nothing; those within it are kept', async () => {
    const started = await startHarness(h().db, { env: { RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW_S: '3600' } });
    try {
      const l = started.harness;
      const wo = await l.post(`${M}/work_orders`, { department_id: 1, work_order_type_id: 2, work_order_type_group_id: 3 });
      expect(wo.status, wo.text).toBe(201);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          upload(l, `${M}/work_orders/${wo.body.id}`, form(Buffer.concat([PNG, Buffer.from(`photo ${i}`)]), `p${i}.png`)),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(9);
      for (const a of answers.filter((x) => x.status !== 201)) expectProblem(a, 429);
      expect(storedFiles(l).filter((f) => !f.split('/').includes('tmp'))).toHaveLength(9);
    } finally {
      await started.stop();
    }
  });
});
