import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRecords } from '../support/rows.ts';
import { BASE, DATABASES, startHarness, type Harness } from '../support/harness.ts';
import { ASSET_RESOURCES } from './asset-resources.ts';

/**
 * The real clients' download (SPEC 14), played as their Python loop does it: `$limit=50`, the
 * cursor read from Link with their regex, `$linked` and the filter resent on every page with
 * `$cursor` and `$page`, 429 waited out; pausing most of an hour between pages (the fake clock)
 * as their pacing at 900 calls an hour does. Every asset is read once, with all its attributes.
 */
const ASSETS = 5000;
const PROFILE = 573;
const MINUTE = 60_000;

/** A fixed pseudo-random sequence: the same data on every run. */
function numbers(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** The clients' loop; `pause(page)` is the time they wait before asking that page, in ms. */
async function download(h: Harness, clock: { now: number }, pause: (page: number) => number) {
  const read: any[] = [];
  let cursor: string | undefined;
  let page = 1;
  let waited429 = 0;
  for (;;) {
    const params = new URLSearchParams({ profile_id: String(PROFILE), $linked: 'Attributes', $limit: '50' });
    if (cursor) {
      params.set('$cursor', cursor);
      params.set('$page', String(page));
    }
    clock.now += pause(page);
    const r = await h.get(`${BASE}/bulk/assets?${params}`);
    if (r.status === 429) {
      const seconds = Number(r.headers.get('retry-after'));
      waited429++;
      clock.now += seconds * 1000; // they sleep Retry-After: on the fake clock, which the limiter reads too
      continue;
    }
    expect(r.status, r.text).toBe(200);
    if (r.body.length === 0) break;
    read.push(...r.body);
    cursor ??= /\$cursor=([^&>]+)/.exec(r.headers.get('link') ?? '')?.[1];
    expect(cursor).toBeDefined();
    page++;
  }
  return { read, pages: page, waited429 };
}

for (const db of DATABASES) {
  describe(`the real clients' download of 5,000 assets with their attributes [${db}]`, () => {
    const clock = { now: Date.now() };
    let started: Awaited<ReturnType<typeof startHarness>>;
    const expected = new Map<number, { asset: Record<string, unknown>; attributes: number[] }>();

    beforeAll(async () => {
      started = await startHarness(db, {
        resources: ASSET_RESOURCES,
        now: () => clock.now,
        // A budget below their pace (a page every 4 s) makes the loop meet 429 and wait, on the fake
        // clock: the memory store's windows are on it, so the 429s do not hang on the machine's speed.
        env: { RATE_LIMIT_MAX: '40', RATE_LIMIT_WINDOW_S: '600', RATE_LIMIT_STORE: 'memory', TOKEN_TTL_S: '86400' },
      });
      const h = started.harness;
      const random = numbers(41);
      const bodies = Array.from({ length: ASSETS + 200 }, (_, i) => ({
        profile_id: i < ASSETS ? PROFILE : PROFILE + 1,
        tag: `asset ${i}`,
        cost: Math.round(random() * 1e7) / 100,
        in_service: random() < 0.9,
        installed: random() < 0.5 ? null : `20${String(10 + (i % 15))}-0${1 + (i % 9)}-1${i % 10}`,
      }));
      const ids = await insertRecords(h, 'assets', bodies);
      const attributes: Record<string, unknown>[] = [];
      const owners: number[] = [];
      ids.forEach((id, i) => {
        if (i < ASSETS) expected.set(id, { asset: bodies[i]!, attributes: [] });
        const count = Math.floor(random() * 26);
        for (let j = 0; j < count; j++) {
          attributes.push({ asset_id: id, name: `attr ${j}`, value: random() < 0.2 ? null : `value ${i}.${j}` });
          owners.push(id);
        }
      });
      const attributeIds = await insertRecords(h, 'attributes', attributes);
      attributeIds.forEach((aid, k) => expected.get(owners[k]!)?.attributes.push(aid));
    }, 600_000);
    afterAll(async () => started?.stop());

    it('reads every asset once with every attribute, through 429s and two pauses of 55 minutes between pages', async () => {
      const h = started.harness;
      const { read, pages, waited429 } = await download(h, clock, (page) => (page === 3 || page === 60 ? 55 * MINUTE : 4 * 1000));
      expect(pages).toBe(ASSETS / 50 + 1);
      expect(waited429).toBeGreaterThan(0);
      expect(read).toHaveLength(ASSETS);
      expect(new Set(read.map((a) => a.id)).size).toBe(ASSETS);
      let attributeCount = 0;
      for (const record of read) {
        const want = expected.get(record.id)!;
        expect(record).toMatchObject({ ...want.asset, deleted: false });
        expect(record.linked.Attributes.map((a: any) => a.id)).toEqual(want.attributes);
        for (const a of record.linked.Attributes) expect(a.asset_id).toBe(record.id);
        attributeCount += want.attributes.length;
      }
      expect(attributeCount).toBeGreaterThan(ASSETS * 10);
      // One page of the attributes as the child list shows them: the same records.
      const sample = read[1234];
      expect((await h.get(`${BASE}/assets/${sample.id}/attributes?$limit=50`)).body).toEqual(sample.linked.Attributes);
    }, 600_000);
  });
}
