import { compileErrors, validate } from '@readme/openapi-parser';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { loadResources } from '../../server/load-resources.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { DEFINE_URL, resourcesCopy } from '../support/resources-dir.ts';

// As docs/states.md says: examples/states/inspections.ts copied into resources/, its import pointed at the engine.
const source = readFileSync(new URL('../../examples/states/inspections.ts', import.meta.url), 'utf8').replace(
  "'../../engine/define.ts'",
  `'${DEFINE_URL}'`,
);
const copy = resourcesCopy({ 'inspections.ts': source });
afterAll(() => copy.remove());
const resources = await loadResources(copy.dir);

describeEachDatabase(
  'the states example, added as one file in resources/',
  (h) => {
    it('is served, and refuses a move its states do not list with 409', async () => {
      const c = await h().post(`${M}/inspections`, { site: 'boiler room' });
      expect(c.body.status, c.text).toBe('scheduled');
      const r = await h().patch(`${M}/inspections/${c.body.id}`, { status: 'signed_off' });
      expect(r.status).toBe(409);
      expect(r.body.errors).toEqual([
        { field: 'status', message: 'may not move from scheduled to signed_off: from scheduled it may move to in_progress or cancelled' },
      ]);
    });

    it('gives the field an enum and x-states in the OpenAPI document, and its description shows the moves', async () => {
      const doc = (await h().request('GET', `${BASE}/openapi.json`, { token: null })).body;
      const result = await validate(structuredClone(doc) as any);
      expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
      const status = doc.components.schemas['inspections.record'].properties.status;
      expect(status.enum).toEqual(['scheduled', 'in_progress', 'on_hold', 'done', 'signed_off', 'cancelled']);
      expect(status['x-states']).toMatchObject({ scheduled: ['in_progress', 'cancelled'], signed_off: [] });
      expect(status.description).toContain('- `scheduled` -> `in_progress`, `cancelled` (the initial state)');
      expect(status.description).toContain('- `signed_off` -> nothing (an end state) (entered only by roles `admin`, `supervisor`)');
      for (const mode of ['create', 'replace', 'patch'])
        expect(doc.components.schemas[`inspections.${mode}`].properties.status).toMatchObject({
          enum: status.enum,
          'x-states': status['x-states'],
        });
      // The docs page renders this document: the moves are in what it shows.
      expect((await h().request('GET', `${BASE}/docs`, { token: null })).status).toBe(200);
    });
  },
  { resources },
);
