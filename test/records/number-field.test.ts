import fc from 'fast-check';
import { expect, it } from 'vitest';
import { defineResource, isExactNumber, number, string } from '../../engine/define.ts';
import { evaluate, type ReferenceResource, type Row } from '../support/reference-evaluator.ts';
import { describeEachDatabase, M } from '../support/harness.ts';
import { expectProblem } from '../support/fixtures.ts';

/** A collection with number fields, as the real assets' costs. */
const assets = defineResource({
  name: 'assets',
  fields: {
    tag: string({ required: true, filterable: true }),
    cost: number({ nullable: true, filterable: true }),
    rate: number({ default: 0.5 }),
  },
});

/** Values whose text a client would notice changing: fractions, 15 digits, both exponent forms, signs. */
const EXACT = [
  0, 0.1, -2.5, 12.34, 9.5, 10, 100, 1e-7, 0.000001, 1.5e-5, 123456789012345, 99999999999999.9, 1e20, 1.5e21, 5e22, -7.25e-250, -3e-300,
  1.79769313486231e308,
];

describeEachDatabase(
  'number fields',
  (h) => {
    const url = `${M}/assets`;

    it('store each value exactly as sent (up to 15 significant digits) and answer it as the same JSON text everywhere', async () => {
      const ids: number[] = [];
      for (const [i, cost] of EXACT.entries()) {
        const r = await h().post(url, { tag: `a${i}`, cost });
        expect(r.status, r.text).toBe(201);
        expect(r.body).toMatchObject({ cost, rate: 0.5 });
        expect(r.text).toContain(`"cost":${JSON.stringify(cost)},`);
        const read = await h().get(`${url}/${r.body.id}`);
        expect(read.text).toBe(r.text);
        ids.push(r.body.id);
      }
      const page = await h().get(`${url}?$limit=50`);
      expect(page.text).toBe(JSON.stringify(EXACT.map((cost, i) => ({ ...page.body[i], cost }))));
      const changed = await h().patch(`${url}/${ids[0]}`, { cost: 4.35, rate: -0.25 });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ cost: 4.35, rate: -0.25 });
      expect((await h().get(`${url}/${ids[0]}`)).text).toBe(changed.text);
      // Negative zero is zero: JSON and the databases would each write it their own way.
      const zero = await h().post(url, { tag: 'z', cost: -0 });
      expect(zero.text).toContain('"cost":0,');
    });

    it('filters and $orderBy compare numerically, not as text', async () => {
      for (const [tag, cost] of [
        ['nine', 9.5],
        ['ten', 10],
        ['hundred', 100],
        ['minus', -1.25],
        ['none', null],
      ] as const)
        expect((await h().post(url, { tag: `f-${tag}`, cost })).status).toBe(201);
      const tags = async (query: string) => {
        const r = await h().get(`${url}?${query}&tag:like=f-%25&$limit=50`);
        expect(r.status, r.text).toBe(200);
        return r.body.map((a: { tag: string }) => a.tag.slice(2));
      };
      expect(await tags('cost:gt=9.5')).toEqual(['ten', 'hundred']);
      expect(await tags('cost:gte=9.5&cost:lt=100')).toEqual(['nine', 'ten']);
      expect(await tags('cost:lte=1e1')).toEqual(['nine', 'ten', 'minus']);
      expect(await tags('cost=10&cost=-1.25')).toEqual(['ten', 'minus']);
      expect(await tags('cost=10.0')).toEqual(['ten']);
      expect(await tags('cost:ne=10')).toEqual(['nine', 'hundred', 'minus', 'none']);
      expect(await tags('cost:null=true')).toEqual(['none']);
      expect(await tags('$orderBy=cost')).toEqual(['minus', 'nine', 'ten', 'hundred', 'none']);
      expect(await tags('$orderBy=cost:desc&cost:null=false')).toEqual(['hundred', 'ten', 'nine', 'minus']);
    });

    it('refuses what is not a number it can keep exactly: 422 for a body, 400 for a filter', async () => {
      expectProblem(await h().post(url, { tag: 'a', cost: '12.5' }), 422, ['cost']);
      expectProblem(await h().post(url, { tag: 'a', cost: true, rate: null }), 422, ['cost', 'rate']);
      // 17 significant digits: 0.1 + 0.2 as JavaScript adds them.
      const digits = await h().post(url, { tag: 'a', cost: 0.1 + 0.2 });
      expectProblem(digits, 422, ['cost']);
      expect(digits.body.errors[0].message).toMatch(/15 significant digits/);
      // Past a double's range JSON.parse gives Infinity; below 1e-307 a double keeps fewer digits.
      expectProblem(
        await h().request('POST', url, { raw: '{"tag":"a","cost":1e400}', headers: { 'content-type': 'application/json' } }),
        422,
        ['cost'],
      );
      expectProblem(await h().post(url, { tag: 'a', cost: 5e-324 }), 422, ['cost']);
      for (const bad of ['abc', '0.30000000000000004', '1e400', 'NaN', 'Infinity', '1.', '0x10', ''])
        expectProblem(await h().get(`${url}?cost=${encodeURIComponent(bad)}`), 400, ['cost']);
      expectProblem(await h().get(`${url}?cost:like=1%25`), 400, ['cost:like']);
    });

    it('filters and orders as the reference evaluator does, for random numbers and queries', async () => {
      const NUMBERS = [0, 1, -1, 0.5, 2.5, 10, 1e-7, 1e21, -1e21, 123456789012345, 99999999999999.9, 0.1, 3];
      const value = fc.oneof(
        fc.constantFrom(...NUMBERS),
        fc.integer({ min: -30, max: 30 }).map((i) => i / 4),
      );
      const made: Row[] = [];
      const reference: ReferenceResource = {
        fields: { id: 'integer', created: 'date', updated: 'timestamp', deleted: 'boolean', tag: 'string', cost: 'number', rate: 'number' },
        filterable: ['id', 'tag', 'cost'],
      };
      for (const cost of [...NUMBERS, null, 2.5, -0.75]) {
        const r = await h().post(url, { tag: 'p', cost });
        made.push({ ...r.body });
      }
      const params = fc.array(
        fc.tuple(
          fc.constantFrom('cost', 'cost:ne', 'cost:gt', 'cost:gte', 'cost:lt', 'cost:lte'),
          fc.oneof(value.map(String), fc.constantFrom('1e-7', '1.0', '+3', '2.50', '1E21', '-0')),
        ),
        { maxLength: 3 },
      );
      await fc.assert(
        fc.asyncProperty(params, fc.constantFrom('cost', 'cost:desc', 'id'), async (filters, order) => {
          const once = filters.filter(([n], i) => n === 'cost' || n === 'cost:ne' || filters.findIndex(([m]) => m === n) === i);
          const pairs = [...once, ['tag', 'p'], ['$orderBy', order], ['$limit', '50']] as [string, string][];
          const expected = evaluate(reference, made, pairs);
          const r = await h().get(`${url}?${pairs.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&')}`);
          expect(expected.ok, JSON.stringify(expected)).toBe(true);
          expect(r.status, r.text).toBe(200);
          expect(r.body.map((a: Row) => a.id)).toEqual(expected.ok && expected.ids);
        }),
        { numRuns: 40 },
      );
      expect(NUMBERS.every(isExactNumber)).toBe(true);
    });

    it('is a number in the OpenAPI document', async () => {
      const doc = (await h().get('/v4_server/external/v1/openapi.json')).body;
      const schema = JSON.stringify(doc);
      expect(schema).toContain('"cost":{"anyOf":[{"type":"number"');
    });
  },
  { resources: [assets] },
);
