import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type DbEngine } from '../../engine/create-engine.ts';
import { makeRole } from '../support/auth.ts';
import { expectProblem, make, makeWorkOrder } from '../support/fixtures.ts';
import { form, upload } from '../support/files.ts';
import { BASE, DATABASES, describeEachDatabase, M } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';
import { ASSET_RESOURCES } from './asset-resources.ts';

/** SPEC 14: `/bulk` and `$linked`: every live child, in id order, as the child's list shows it. */
const A = `${BASE}/assets`;
const BULK = `${BASE}/bulk/assets`;
const nextOf = (r: { headers: Headers }) => /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];

describeEachDatabase(
  '/bulk and $linked',
  (h) => {
    const profile = 77;
    const assets: Record<string, any>[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 5; i++) {
        const asset = await make(h(), A, { profile_id: profile, tag: `a${i}` });
        for (let j = 0; j < i; j++) await make(h(), `${A}/${asset.id}/attributes`, { name: `n${j}`, value: `v${i}.${j}` });
        assets.push(asset);
      }
      // A deleted child is not linked.
      const gone = await make(h(), `${A}/${assets[4]!.id}/attributes`, { name: 'gone', value: null });
      expect((await h().del(`${BASE}/attributes/${gone.id}`)).status).toBe(204);
    });

    it('/bulk lists with linked.Attributes: every live child in id order, exactly as the child list shows it', async () => {
      const r = await h().get(`${BULK}?profile_id=${profile}&$linked=Attributes&$limit=50`);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toHaveLength(5);
      for (const [i, record] of r.body.entries()) {
        const { linked, ...own } = record;
        expect(own).toEqual(assets[i]);
        expect(Object.keys(linked)).toEqual(['Attributes']);
        const children = (await h().get(`${A}/${own.id}/attributes?$limit=50`)).body;
        expect(linked.Attributes).toEqual(children);
        expect(linked.Attributes).toHaveLength(i);
      }
      expect(r.headers.get('x-total')).toBe('5');
    });

    it('$linked works on plain lists and reads, on /bulk reads, and beside $fields', async () => {
      const last = assets[4]!;
      const read = await h().get(`${A}/${last.id}?$linked=Attributes`);
      expect(read.body.linked.Attributes.map((a: any) => a.name)).toEqual(['n0', 'n1', 'n2', 'n3']);
      expect((await h().get(`${BASE}/bulk/assets/${last.id}?$linked=Attributes`)).body).toEqual(read.body);
      const list = await h().get(`${A}?profile_id=${profile}&$linked=Attributes&$fields=tag`);
      expect(list.body[4]).toEqual({ id: last.id, tag: 'a4', linked: { Attributes: read.body.linked.Attributes } });
      expect((await h().get(`${BULK}?profile_id=${profile}`)).body).toEqual(assets);
    });

    it('a linked name is title-cased words by default (Work Orders, Notes)', async () => {
      const sr = await make(h(), `${M}/service_requests`, { description: 'leak' });
      const wo = await make(h(), `${M}/service_requests/${sr.id}/work_orders`, {
        department_id: 1,
        work_order_type_id: 2,
        work_order_type_group_id: 3,
      });
      const note = await make(h(), `${M}/work_orders/${wo.id}/notes`, { note: 'fixed' });
      const r = await h().get(`${BASE}/bulk/maintenance/service_requests/${sr.id}?$linked=Work+Orders`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.linked).toEqual({ 'Work Orders': [wo] });
      expect((await h().get(`${M}/work_orders?id=${wo.id}&$linked=Notes`)).body[0].linked).toEqual({ Notes: [note] });
    });

    it("Files links a record's live attached files as its file list shows them, signed links too; read on the parent suffices", async () => {
      const wo = await makeWorkOrder(h());
      const path = `${M}/work_orders/${wo.id}`;
      for (const name of ['a.txt', 'b.txt', 'gone.txt']) expect((await upload(h(), path, form(`bytes of ${name}`, name))).status).toBe(201);
      const listed = (await h().get(`${path}/attached_files`)).body as Record<string, unknown>[];
      expect((await h().del(`${path}/attached_files/${listed[2]!.id}`)).status).toBe(204);
      // A link is signed per request: compared without it, then opened.
      const bare = (files: Record<string, unknown>[]) => files.map(({ content_url, ...file }) => file);
      await makeRole(h().service, 'demo.main', 'wo-reader', [{ collection: 'work_orders', action: 'read' }]);
      const reader = h().as((await h().login({ username: 'wendy', roles: ['wo-reader'] })).token);
      for (const [who, url] of [
        [h(), `${M}/work_orders?id=${wo.id}&$linked=Files,Notes`],
        [reader, `${BASE}/bulk/maintenance/work_orders/${wo.id}?$linked=Files`],
      ] as const) {
        const r = await who.get(url);
        expect(r.status, r.text).toBe(200);
        const { linked } = Array.isArray(r.body) ? r.body[0] : r.body;
        expect(bare(linked.Files)).toEqual(bare(listed.slice(0, 2)));
        const opened = await h().service.app.request(linked.Files[1].content_url);
        expect(await opened.text()).toBe('bytes of b.txt');
      }
    });

    it('an unknown name is 400 naming $linked and listing the names allowed', async () => {
      for (const q of ['$linked=attributes', '$linked=Attributes,Notes', '$linked=']) {
        const r = await h().get(`${BULK}?${q}`);
        expectProblem(r, 400, ['$linked']);
        expect(r.body.errors[0].message, q).toMatch(/Attributes/);
      }
      expectProblem(await h().get(`${BASE}/bulk/maintenance/notes?$linked=Attributes`), 400, ['$linked']);
      expect((await h().get(`${BASE}/bulk/maintenance/notes?$linked=X`)).body.errors[0].message).toMatch(/notes has no linked collections/);
    });

    it('each name needs read on its collection: 403 without it, 200 without $linked', async () => {
      await makeRole(h().service, 'demo.main', 'assets-only', [{ collection: 'assets', action: 'read' }]);
      const reader = h().as((await h().login({ username: 'olga', roles: ['assets-only'] })).token);
      expect((await reader.get(BULK)).status).toBe(200);
      expectProblem(await reader.get(`${BULK}?$linked=Attributes`), 403);
      expectProblem(await reader.get(`${A}/${assets[0]!.id}?$linked=Attributes`), 403);
    });

    it('$linked is part of the cursor: kept by a later page asked with $cursor and $page, resent alike; another value is 400', async () => {
      const first = await h().get(`${BULK}?profile_id=${profile}&$linked=Attributes&$limit=2`);
      const next = nextOf(first)!;
      expect(next.startsWith(`${BULK}?$cursor=`)).toBe(true);
      const second = await h().get(next);
      expect(second.body.map((a: any) => a.linked.Attributes.length)).toEqual([2, 3]);
      const resent = await h().get(`${next}&profile_id=${profile}&$linked=Attributes&$limit=2`);
      expect(resent.body).toEqual(second.body);
      expectProblem(await h().get(`${next}&$linked=Attributes,Attributes,Nope`), 400, ['$linked']);
      const plain = await h().get(`${BULK}?profile_id=${profile}&$limit=2`);
      expectProblem(await h().get(`${nextOf(plain)!}&$linked=Attributes`), 400, ['$linked']);
    });

    it('nothing but GET and HEAD exists under /bulk: 405 with Allow: GET, HEAD; deeper paths 404; the token first', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const path of [BULK, `${BULK}/${assets[0]!.id}`]) {
          const r = await h().request(method, path, { body: {} });
          expectProblem(r, 405);
          expect(r.headers.get('allow')).toBe('GET, HEAD');
        }
      }
      expect((await h().request('HEAD', `${BULK}?$linked=Attributes`)).status).toBe(200);
      for (const path of [`${BULK}/${assets[1]!.id}/attributes`, `${BASE}/bulk`, `${BASE}/bulk/maintenance`, `${BASE}/bulk/assets/x`])
        expectProblem(await h().get(path), 404);
      expect((await h().as(null).get(BULK)).status).toBe(401);
    });
  },
  { resources: ASSET_RESOURCES },
);

/** The statements a page costs, counted on the engine's own Kysely. */
for (const db of DATABASES) {
  describe(`a page with $linked reads each linked collection in one statement [${db}]`, () => {
    let engine: DbEngine;
    let close: () => Promise<void>;
    const statements: string[] = [];
    const log = (event: { query: { sql: string } }) => void statements.push(event.query.sql);
    const post = (path: string, body: unknown) =>
      engine.fetch(
        new Request(`http://x${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      );
    beforeAll(async () => {
      if (db === 'sqlite') {
        engine = createEngine({
          db: new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }), log }),
          resources: ASSET_RESOURCES,
        });
        close = () => engine.close();
      } else {
        const fresh = await freshPostgresDatabase();
        engine = createEngine({
          db: new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 2) }), log }),
          resources: ASSET_RESOURCES,
        });
        close = async () => {
          await engine.close();
          await fresh.drop();
        };
      }
      await engine.migrate();
      for (let i = 0; i < 40; i++) {
        const asset = (await (await post(A, { profile_id: 5, tag: `t${i}` })).json()) as { id: number };
        for (let j = 0; j < 3; j++) await post(`${A}/${asset.id}/attributes`, { name: `n${j}` });
      }
    });
    afterAll(async () => close?.());

    const cost = async (path: string) => {
      statements.length = 0;
      const r = await engine.fetch(new Request(`http://x${path}`));
      expect(r.status, await r.clone().text()).toBe(200);
      return { count: statements.length, body: (await r.json()) as any[] };
    };

    /** Statements that read the child table: k = 1 for one name, whatever the page size. */
    const childReads = () => statements.filter((q) => /attributes/.test(q)).length;

    it('the children of a whole page are read by one statement, for a page of 5 and of 40, first and later pages', async () => {
      for (const limit of [5, 40]) {
        // The first search of a shape may run its statement twice while the store learns its plan (docs/cursors.md).
        await cost(`${BULK}?profile_id=5&$limit=${limit}&$linked=Attributes`);
        const linked = await cost(`${BULK}?profile_id=5&$limit=${limit}&$linked=Attributes`);
        expect(linked.body).toHaveLength(limit);
        expect(linked.body.every((a) => a.linked.Attributes.length === 3)).toBe(true);
        expect(childReads(), `page 1 of ${limit}`).toBe(1);
        const plain = await cost(`${BULK}?profile_id=5&$limit=${limit}`);
        expect(childReads()).toBe(0);
        expect(plain.body).toHaveLength(limit);
      }
      const first = await engine.fetch(new Request(`http://x${BULK}?profile_id=5&$limit=5&$linked=Attributes`));
      const later = nextOf(first)!;
      for (const page of [later, later.replace('$page=2', '$page=3')]) {
        const r = await cost(page);
        expect(r.body.every((a) => a.linked.Attributes.length === 3)).toBe(true);
        expect(childReads(), page).toBe(1);
      }
    });

    it('two names: each linked collection is read by one statement per page', async () => {
      for (let i = 0; i < 6; i++) {
        const wo = (await (
          await post(`${M}/work_orders`, { department_id: 4, work_order_type_id: 2, work_order_type_group_id: 3 })
        ).json()) as {
          id: number;
        };
        for (let j = 0; j < 2; j++) await post(`${M}/work_orders/${wo.id}/notes`, { note: `n${j}` });
      }
      const path = `${BASE}/bulk/maintenance/work_orders?department_id=4&$limit=5&$linked=Notes,Files`;
      await cost(path);
      const page = await cost(path);
      expect(page.body.map((w) => [w.linked.Notes.length, w.linked.Files.length])).toEqual(Array(5).fill([2, 0]));
      for (const table of [/notes/, /attached_files/])
        expect(
          statements.filter((q) => table.test(q)),
          String(table),
        ).toHaveLength(1);
    });
  });
}
