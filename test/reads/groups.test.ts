import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../engine/registry.ts';
import { defineResource, string } from '../../engine/define.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem, make } from '../support/fixtures.ts';
import { form, send, upload } from '../support/files.ts';
import { BASE, describeEachDatabase, M } from '../support/harness.ts';
import { ASSET_RESOURCES, assets, profiles } from './asset-resources.ts';

/** SPEC 14: a collection is served in its definition's group, and every rule of 1-13 holds there. */
const A = `${BASE}/assets`;
const P = `${BASE}/am/profiles`;
const ASSET = { profile_id: 573, tag: 'pump' };

describeEachDatabase(
  'path groups',
  (h) => {
    it('a root-level collection is created, listed, read, changed and deleted at {base}/{collection}', async () => {
      const r = await h().post(A, { ...ASSET, cost_cents: 1200 });
      expect(r.status, r.text).toBe(201);
      expect(r.headers.get('location')).toBe(`${A}/${r.body.id}`);
      expect((await h().get(`${A}/${r.body.id}`)).body).toEqual(r.body);
      const list = await h().get(`${A}?tag=pump`);
      expect(list.status, list.text).toBe(200);
      expect(list.body.map((a: any) => a.id)).toContain(r.body.id);
      const p = await h().patch(`${A}/${r.body.id}`, { tag: 'valve' });
      expect(p.status, p.text).toBe(200);
      expect((await h().put(`${A}/${r.body.id}`, { ...ASSET, tag: 'fan' })).body).toMatchObject({ tag: 'fan', cost_cents: null });
      expect((await h().del(`${A}/${r.body.id}`)).status).toBe(204);
      expectProblem(await h().get(`${A}/${r.body.id}`), 404);
      expect((await h().get(`${A}/${r.body.id}?$deleted=true`)).body).toMatchObject({ deleted: true });
    });

    it('a collection in the group am is served at {base}/am/{collection}, its child paths likewise', async () => {
      const profile = await make(h(), P, { title: 'north site' });
      expect((await h().get(`${P}/${profile.id}`)).body).toEqual(profile);
      const asset = await make(h(), A, ASSET);
      const attr = await h().post(`${A}/${asset.id}/attributes`, { name: 'colour', value: 'red' });
      expect(attr.status, attr.text).toBe(201);
      expect(attr.headers.get('location')).toBe(`${BASE}/attributes/${attr.body.id}`);
      expect((await h().get(`${A}/${asset.id}/attributes`)).body).toEqual([attr.body]);
      expect((await h().get(`${BASE}/attributes/${attr.body.id}`)).body).toEqual(attr.body);
    });

    it('a collection answers only in its own group: 404 elsewhere; 405 with Allow from the route table', async () => {
      const asset = await make(h(), A, ASSET);
      for (const path of [
        `${M}/assets`,
        `${M}/assets/${asset.id}`,
        `${BASE}/am/assets`,
        `${BASE}/profiles`,
        `${BASE}/work_orders`,
        `${BASE}/am`,
      ])
        expectProblem(await h().get(path), 404);
      expectProblem(await h().get(`${A}/${asset.id}/attributes/1/x`), 404);
      const r = await h().request('DELETE', A);
      expectProblem(r, 405);
      expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
      expect((await h().request('HEAD', `${A}/${asset.id}`)).status).toBe(200);
    });

    it('the token is checked first in every group; an unknown first segment is not a collection path', async () => {
      for (const path of [A, `${A}/1`, P, `${BASE}/am/nothing`]) expect((await h().as(null).get(path)).status, path).toBe(401);
      expectProblem(await h().as(null).get(`${BASE}/nothing`), 404);
    });

    it('roles name collections whatever their group', async () => {
      await makeRole(h().service, 'demo.main', 'asset-reader', [{ collection: 'assets', action: 'read' }]);
      const reader = h().as((await h().login({ username: 'ari', roles: ['asset-reader'] })).token);
      expect((await reader.get(A)).status).toBe(200);
      expectProblem(await reader.post(A, ASSET), 403);
      expectProblem(await reader.get(P), 403);
    });

    it('cursors page a root-level collection through its own Link', async () => {
      for (let i = 0; i < 3; i++) await make(h(), A, { ...ASSET, profile_id: 9001 });
      const first = await h().get(`${A}?profile_id=9001&$limit=2`);
      const link = first.headers.get('link')!;
      expect(link).toContain(`<${A}?$cursor=`);
      const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
      const second = await h().get(next);
      expect(second.status, second.text).toBe(200);
      expect([...first.body, ...second.body].map((a: any) => a.profile_id)).toEqual([9001, 9001, 9001]);
    });

    it('the change feed names the collection; a batch writes in every group', async () => {
      const start = Number((await h().get(`${BASE}/events`)).headers.get('x-change-seq'));
      const batch = await h().post(`${BASE}/batch`, {
        operations: [
          { method: 'POST', path: '/assets', body: ASSET },
          { method: 'POST', path: `${BASE}/am/profiles`, body: { title: 'south' } },
        ],
      });
      expect(batch.status, batch.text).toBe(200);
      expect(batch.body.map((o: any) => o.location)).toEqual([`${A}/${batch.body[0].body.id}`, `${P}/${batch.body[1].body.id}`]);
      const events = (await h().get(`${BASE}/events?$after=${start}`)).body;
      expect(events.map((e: any) => e.collection)).toEqual(['assets', 'profiles']);
    });

    it('writes keep If-Match and Idempotency-Key, and files are attached, outside /maintenance too', async () => {
      const asset = await h().post(A, ASSET);
      const at = `${A}/${asset.body.id}`;
      expectProblem(await h().request('PATCH', at, { body: { tag: 'x' }, headers: { 'if-match': '"999"' } }), 412);
      const changed = await h().request('PATCH', at, { body: { tag: 'x' }, headers: { 'if-match': asset.headers.get('etag')! } });
      expect(changed.status, changed.text).toBe(200);
      const keyed = () => h().request('POST', A, { body: ASSET, headers: { 'idempotency-key': 'root-level' } });
      const [first, again] = [await keyed(), await keyed()];
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      const profile = await make(h(), P, { title: 'with a plan' });
      const up = await upload(h(), `${P}/${profile.id}`, form('plan bytes', 'plan.txt'));
      expect(up.status, up.text).toBe(201);
      expect(up.headers.get('location')).toBe(`${P}/${profile.id}/attached_files/${up.body.id}`);
      expect((await send(h(), 'GET', `${up.headers.get('location')}/content`)).text).toBe('plan bytes');
      const linked = await h().get(`${BASE}/bulk/am/profiles/${profile.id}?$linked=Files`);
      expect(linked.body.linked.Files.map((f: any) => f.filename)).toEqual(['plan.txt']);
    });

    it('the OpenAPI document declares each collection at its own path', async () => {
      const doc = (await h().as(null).get(`${BASE}/openapi.json`)).body;
      const paths = Object.keys(doc.paths);
      expect(paths).toEqual(
        expect.arrayContaining([A, `${A}/{id}`, `${A}/{id}/attributes`, `${A}/{id}/attributes/{child_id}`, P, `${P}/{id}`]),
      );
      expect(paths.filter((p) => p.startsWith(`${M}/assets`) || p.startsWith(`${BASE}/am/assets`))).toEqual([]);
      const ids = paths.flatMap((p) => Object.values(doc.paths[p]).flatMap((op: any) => (op.operationId ? [op.operationId] : [])));
      expect(new Set(ids).size).toBe(ids.length);
    });
  },
  { resources: ASSET_RESOURCES },
);

describe('the registry refuses groups that would share a path', () => {
  const named = (name: string, group: string) => defineResource({ name, group, fields: { title: string({ required: true }) } });
  it.each([
    ['a name in two groups', [assets, named('assets', 'am')], /assets: defined twice/],
    ['a root-level collection named as a group', [profiles, named('am', '')], /am: a root-level collection cannot share/],
    ['a root-level collection at a path the service serves', [named('bulk', '')], /bulk: a root-level collection cannot take/],
    ['a group the service serves', [named('x', 'events')], /x: group events/],
  ])('%s', (_what, definitions, message) => expect(() => createRegistry(definitions)).toThrow(message));

  it('checks a group and a linked name on the definition', () => {
    expect(() => named('x', 'Am')).toThrow(/group must be/);
    expect(() => defineResource({ name: 'x', linkedName: 'A,B', fields: {} })).toThrow(/linkedName must match/);
  });
});
