import { expect, it } from 'vitest';
import { defineResource, string } from '../../engine/define.ts';
import { expectProblem } from '../support/fixtures.ts';
import { form, PNG, upload } from '../support/files.ts';
import { describeEachDatabase, M } from '../support/harness.ts';

const inspections = defineResource({
  name: 'inspections',
  fields: { place: string({ required: true }) },
  files: { maxBytes: 100, types: ['image/*'] },
});

describeEachDatabase(
  "a definition's files: types and maxBytes",
  (h) => {
    it('takes only the declared types, as sniffed (a declared image/png that is not one: 415), up to its own limit (413)', async () => {
      const made = await h().post(`${M}/inspections`, { place: 'boiler room' });
      expect(made.status, made.text).toBe(201);
      const at = `${M}/inspections/${made.body.id}`;
      expect((await upload(h(), at, form(PNG, 'ok.png', {}, 'image/png'))).status).toBe(201);
      const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(60)]);
      expectProblem(await upload(h(), at, form(exe, 'photo.png', {}, 'image/png')), 415);
      expectProblem(await upload(h(), at, form('plain text', 'notes.txt', {}, 'text/plain')), 415);
      expectProblem(await upload(h(), at, form(Buffer.concat([PNG, Buffer.alloc(100)]), 'big.png', {}, 'image/png')), 413);
      expect((await h().get(`${at}/attached_files`)).body).toHaveLength(1);
    });
  },
  { resources: [inspections] },
);
