import { beforeAll, expect, it } from 'vitest';
import { expectProblem, make } from '../support/fixtures.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { ASSET_RESOURCES } from './asset-resources.ts';

/** SPEC 14: `$fields` on lists, reads and /bulk: only those fields and id; part of a cursor's identity. */
const A = `${BASE}/assets`;
const nextOf = (r: { headers: Headers }) => /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];

describeEachDatabase(
  '$fields',
  (h) => {
    let asset: Record<string, any>;
    beforeAll(async () => {
      asset = await make(h(), A, { profile_id: 41, tag: 'pump', cost_cents: 700 });
      for (let i = 0; i < 4; i++) await make(h(), A, { profile_id: 41, tag: `t${i}` });
    });

    it('a list shows only the fields asked and id, in the record order, whatever order they were asked in', async () => {
      const r = await h().get(`${A}?profile_id=41&$fields=tag,profile_id&$limit=2`);
      expect(r.status, r.text).toBe(200);
      expect(r.body[0]).toEqual({ id: asset.id, profile_id: 41, tag: 'pump' });
      expect(Object.keys(r.body[0])).toEqual(['id', 'profile_id', 'tag']);
      expect(r.headers.get('x-total')).toBe('5');
    });

    it('a read and a /bulk read show only those fields too; a child list likewise', async () => {
      expect((await h().get(`${A}/${asset.id}?$fields=cost_cents`)).body).toEqual({ id: asset.id, cost_cents: 700 });
      expect((await h().get(`${BASE}/bulk/assets/${asset.id}?$fields=tag`)).body).toEqual({ id: asset.id, tag: 'pump' });
      expect((await h().get(`${BASE}/bulk/assets?profile_id=41&$fields=id&$limit=1`)).body).toEqual([{ id: asset.id }]);
      const attr = await make(h(), `${A}/${asset.id}/attributes`, { name: 'colour', value: 'red' });
      expect((await h().get(`${A}/${asset.id}/attributes?$fields=name`)).body).toEqual([{ id: attr.id, name: 'colour' }]);
    });

    it("later pages keep the cursor's $fields, asked with $cursor and $page only or with the same value; another value is 400", async () => {
      const first = await h().get(`${A}?profile_id=41&$fields=tag&$limit=2`);
      const next = nextOf(first)!;
      expect(next).not.toContain('$fields');
      const second = await h().get(next);
      expect(second.status, second.text).toBe(200);
      expect(second.body.map((a: any) => Object.keys(a))).toEqual([
        ['id', 'tag'],
        ['id', 'tag'],
      ]);
      expect((await h().get(`${next}&profile_id=41&$fields=tag`)).body).toEqual(second.body);
      expectProblem(await h().get(`${next}&$fields=tag,profile_id`), 400, ['$fields']);
      const plain = await h().get(`${A}?profile_id=41&$limit=2`);
      expectProblem(await h().get(`${nextOf(plain)!}&$fields=tag`), 400, ['$fields']);
    });

    it('an unknown field is 400 naming $fields and listing the fields; so is an empty list', async () => {
      for (const path of [
        `${A}?$fields=tag,colour`,
        `${A}/${asset.id}?$fields=colour`,
        `${BASE}/bulk/assets?$fields=`,
        `${A}?$fields=tag&$fields=id`,
      ]) {
        const r = await h().get(path);
        expectProblem(r, 400, ['$fields']);
      }
      expect((await h().get(`${A}?$fields=colour`)).body.errors[0].message).toMatch(/fields: id, created, updated, deleted, profile_id/);
      expectProblem(await h().get(`${M}/work_orders?$fields=tag`), 400, ['$fields']);
    });
  },
  { resources: ASSET_RESOURCES },
);
