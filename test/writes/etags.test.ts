import { forgetFingerprints } from '../support/fingerprints.ts';
import { expect, it } from 'vitest';
import { describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';
import { expectProblem, makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';

const STRONG = /^"[^"]+"$/;
const tagOf = (r: { headers: Headers }) => r.headers.get('etag')!;
const withTag = (h: Harness, method: string, path: string, tag: string, body?: unknown) =>
  h.request(method, path, { body, headers: { 'if-match': tag } });

describeEachDatabase('ETags and conditional requests (SPEC 10)', (h) => {
  it('every answer carrying one record has a strong ETag, not a field, that every write changes (soft delete too)', async () => {
    const made = await h().post(`${M}/work_orders`, WORK_ORDER);
    expect(made.status).toBe(201);
    const tags = [tagOf(made)];
    expect(tags[0]).toMatch(STRONG);
    expect(Object.keys(made.body)).not.toContain('mrs_version');
    const url = `${M}/work_orders/${made.body.id}`;
    const read = await h().get(url);
    expect(tagOf(read)).toBe(tags[0]);
    expect(read.body).toEqual(made.body);
    for (const write of [() => h().patch(url, { priority: 2 }), () => h().patch(url, { priority: 2 }), () => h().put(url, WORK_ORDER)]) {
      const r = await write();
      expect(r.status).toBe(200);
      expect(tagOf(r)).toMatch(STRONG);
      expect(tagOf(await h().get(url))).toBe(tagOf(r));
      tags.push(tagOf(r));
    }
    expect((await h().del(url)).status).toBe(204);
    tags.push(tagOf(await h().get(`${url}?$deleted=true`)));
    expect(new Set(tags).size).toBe(tags.length);
    const child = await h().post(`${M}/work_orders/${(await makeWorkOrder(h())).id}/notes`, { note: 'n' });
    expect(tagOf(child)).toMatch(STRONG);
  });

  it('If-None-Match on GET: 304 with no body when a tag matches (or *), the record otherwise', async () => {
    const wo = await makeWorkOrder(h());
    const url = `${M}/work_orders/${wo.id}`;
    const tag = tagOf(await h().get(url));
    for (const value of [tag, `"nope", ${tag}`, '*', `W/${tag}`]) {
      const r = await h().get(url, { 'if-none-match': value });
      expect(r.status, value).toBe(304);
      expect(r.text).toBe('');
      expect(tagOf(r)).toBe(tag);
    }
    const other = await h().get(url, { 'if-none-match': '"nope"' });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(wo);
    expectProblem(await h().get(url, { 'if-none-match': 'nope' }), 400, ['If-None-Match']);
  });

  it('If-Match on PATCH, PUT and DELETE: written only when a strong tag is current (or *)', async () => {
    const wo = await makeWorkOrder(h());
    const url = `${M}/work_orders/${wo.id}`;
    const first = tagOf(await h().get(url));
    const patched = await withTag(h(), 'PATCH', url, `"x", ${first}`, { priority: 1 });
    expect(patched.status).toBe(200);
    const second = tagOf(patched);
    // The old tag is stale now: 412 with the current tag, and nothing written.
    for (const [method, body] of [
      ['PATCH', { priority: 9 }],
      ['PUT', WORK_ORDER],
      ['DELETE', undefined],
    ] as const) {
      const r = await withTag(h(), method, url, first, body);
      expectProblem(r, 412);
      expect(tagOf(r)).toBe(second);
    }
    // A weak tag never matches, even of the current version.
    expectProblem(await withTag(h(), 'PATCH', url, `W/${second}`, { priority: 9 }), 412);
    const after = await h().get(url);
    expect(after.body).toEqual(patched.body);
    expect(tagOf(after)).toBe(second);
    const star = await withTag(h(), 'PUT', url, '*', WORK_ORDER);
    expect(star.status).toBe(200);
    expect(star.body.priority).toBeNull();
    expectProblem(await withTag(h(), 'DELETE', url, second), 412);
    expect((await withTag(h(), 'DELETE', url, tagOf(star))).status).toBe(204);
    expectProblem(await withTag(h(), 'DELETE', url, '*'), 404);
    // A deleted record is gone whatever the tag: 404, not 412.
    for (const tag of [tagOf(star), first, '*']) expectProblem(await withTag(h(), 'PATCH', url, tag, { priority: 9 }), 404);
  });

  it('a malformed If-Match is 400 naming the header; nothing is written', async () => {
    const wo = await makeWorkOrder(h());
    const url = `${M}/work_orders/${wo.id}`;
    for (const value of ['3', '"a', 'W/3', '"a" "b"', ',', '**'])
      expectProblem(await withTag(h(), 'PATCH', url, value, { priority: 5 }), 400, ['If-Match']);
    expectProblem(await withTag(h(), 'DELETE', url, 'x'), 400, ['If-Match']);
    // An unquoted tag is named as sent, not in the quotes that would make it a tag.
    const unquoted = await withTag(h(), 'PATCH', url, '8', { priority: 5 });
    expect(unquoted.body.errors[0].message).toMatch(/^`8` is not an entity tag: .*quoted tags like "3"/);
    expect((await h().get(url)).body).toEqual(wo);
  });

  it('child records carry their own tags, checked the same way', async () => {
    const wo = await makeWorkOrder(h());
    const note = await h().post(`${M}/work_orders/${wo.id}/notes`, { note: 'a' });
    const url = `${M}/notes/${note.body.id}`;
    expect((await withTag(h(), 'PATCH', url, tagOf(note), { note: 'b' })).status).toBe(200);
    expectProblem(await withTag(h(), 'PATCH', url, tagOf(note), { note: 'c' }), 412);
  });
});

describeEachDatabase(
  'REQUIRE_IF_MATCH=true',
  (h) => {
    it('PATCH, PUT and DELETE without If-Match are 428; with it they are carried out', async () => {
      const wo = await makeWorkOrder(h());
      const url = `${M}/work_orders/${wo.id}`;
      for (const r of [await h().patch(url, { priority: 1 }), await h().put(url, WORK_ORDER), await h().del(url)]) {
        expectProblem(r, 428);
        expect(r.body.type).toMatch(/precondition-required$/);
      }
      const tag = tagOf(await h().get(url));
      expect((await withTag(h(), 'PATCH', url, tag, { priority: 1 })).status).toBe(200);
      expect((await makeNote(h(), wo.id)).id).toBeGreaterThan(0);
    });
  },
  { env: { REQUIRE_IF_MATCH: 'true' } },
);

describeEachDatabase('the version column on tables made before it', (h) => {
  it('an existing tenant with rows gains the column at the next start, its rows intact and at one tag', async () => {
    const first = await startHarness(h().db);
    try {
      const made = [await makeWorkOrder(first.harness, { priority: 4 }), await makeWorkOrder(first.harness, { description: 'kept' })];
      await first.harness.patch(`${M}/work_orders/${made[0]!.id}`, { priority: 5 });
      const kept = await Promise.all(made.map(async (wo) => (await first.harness.get(`${M}/work_orders/${wo.id}`)).body));
      // The table as the code before the version column made it.
      const t = (await first.harness.service.tenants.get('demo.main'))!;
      await t.db.schema.alterTable('work_orders').dropColumn('mrs_version').execute();
      await forgetFingerprints(first.harness.service);
      await first.stop(true);
      const second = await startHarness(h().db, { reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
      try {
        const tags = new Set<string>();
        for (const wo of kept) {
          const r = await second.harness.get(`${M}/work_orders/${wo.id}`);
          expect(r.body).toEqual(wo);
          tags.add(tagOf(r));
        }
        expect([...tags]).toEqual(['"1"']);
        const t2 = (await second.harness.service.tenants.get('demo.main'))!;
        const versions = await t2.db.selectFrom('work_orders').select(['id', 'mrs_version']).orderBy('id').execute();
        expect(versions.map((v) => Number(v.mrs_version))).toEqual(kept.map(() => 1));
        const r = await withTag(second.harness, 'PATCH', `${M}/work_orders/${kept[0].id}`, '"1"', { priority: 6 });
        expect(r.status).toBe(200);
        expect(tagOf(r)).toBe('"2"');
      } finally {
        await second.stop(true);
      }
    } finally {
      await first.cleanup();
    }
  });
});
