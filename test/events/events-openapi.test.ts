import { compileErrors, validate } from '@readme/openapi-parser';
import { expect, it } from 'vitest';
import { makeWorkOrder } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, type Harness } from '../support/harness.ts';

type Json = Record<string, any>;

/** The change feed in the OpenAPI document (SPEC 1 and 9): its path, parameters and event schema. */
const documentOf = async (h: Harness): Promise<Json> => (await h.request('GET', `${BASE}/openapi.json`, { token: null })).body;

describeEachDatabase('the change feed in openapi.json', (h) => {
  it('declares GET {base}/events with $after, $limit, collection and op, X-Change-Seq, and 410', async () => {
    const doc = await documentOf(h());
    const result = await validate(structuredClone(doc) as any);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const item = doc.paths[`${BASE}/events`];
    expect(Object.keys(item)).toEqual(['get']);
    const op = item.get;
    expect(op.parameters.map((p: Json) => p.name)).toEqual(['$after', '$limit', 'collection', 'op']);
    expect(op.parameters.find((p: Json) => p.name === 'collection').schema.items.enum.sort()).toEqual([
      'attached_files',
      'notes',
      'service_requests',
      'work_orders',
    ]);
    expect(op.parameters.find((p: Json) => p.name === 'op').schema.items.enum).toEqual(['create', 'update', 'delete']);
    expect(Object.keys(op.responses['200'].headers)).toContain('X-Change-Seq');
    expect(doc.components.headers['X-Change-Seq']).toBeDefined();
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '405', '410', '429', '503']);
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/event' },
    });
  });

  it('has an event schema and example with the fields a real event has, and the server takes every declared parameter', async () => {
    const doc = await documentOf(h());
    const schema = doc.components.schemas.event;
    await makeWorkOrder(h());
    const r = await h().get(`${BASE}/events?$after=0&$limit=1`);
    expect(r.status, r.text).toBe(200);
    const [real] = r.body;
    expect(Object.keys(schema.properties)).toEqual(Object.keys(real));
    expect(schema.required).toEqual(Object.keys(real));
    const example = doc.paths[`${BASE}/events`].get.responses['200'].content['application/json'].example[0];
    expect(Object.keys(example)).toEqual(Object.keys(real));
    for (const p of doc.paths[`${BASE}/events`].get.parameters as Json[]) {
      const one = p.schema.type === 'array' ? p.schema.items : p.schema;
      const value = one.enum ? one.enum[0] : '1';
      const answer = await h().get(`${BASE}/events?${encodeURIComponent(p.name)}=${value}`);
      expect(answer.status, `${p.name}=${value}: ${answer.text}`).toBe(200);
    }
  });
});
