import { describe, expect, it } from 'vitest';
import { makeNote, makeWorkOrder, WORK_ORDER } from '../support/fixtures.ts';
import { BASE, DATABASES, describeEachDatabase, M, type DatabaseName, type Harness } from '../support/harness.ts';
import { servicesOnOneDatabase } from '../support/services.ts';
import { isRanged } from '../../engine/cursor/layout.ts';

/**
 * SPEC 9: lists join the feed without a gap. A search's first answer carries X-Change-Seq, the
 * seq of the last change its snapshot reflects; later pages repeat it; a client that lists and
 * then follows `GET /events?$after=<X-Change-Seq>` misses no change and sees none twice.
 */
const EVENTS = `${BASE}/events`;
const seqOf = (r: { headers: Headers }) => r.headers.get('x-change-seq');

describeEachDatabase('X-Change-Seq on lists', (h) => {
  it('is on the first answer of every search and repeated on its later pages', async () => {
    const wo = await makeWorkOrder(h());
    await makeNote(h(), wo.id);
    await makeNote(h(), wo.id);
    const feed = Number(seqOf(await h().get(EVENTS)));
    const first = await h().get(`${M}/work_orders/${wo.id}/notes?$limit=1`);
    expect(Number(seqOf(first))).toBe(feed);
    await makeWorkOrder(h());
    const second = await h().get(`${M}/work_orders/${wo.id}/notes?$cursor=${first.headers.get('x-cursor')}&$page=2`);
    expect(second.status, second.text).toBe(200);
    expect(seqOf(second)).toBe(seqOf(first));
    // A new search sees the new change.
    expect(Number(seqOf(await h().get(`${M}/work_orders?$limit=1`)))).toBe(feed + 1);
    // An empty search too.
    expect(Number(seqOf(await h().get(`${M}/work_orders?department_id=424242`)))).toBe(feed + 1);
  });

  it('is read by the ranged snapshot of the unfiltered list too, starting on page 1 or past it', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await makeWorkOrder(h()));
    // A deleted record: a hole in the range of ids.
    expect((await h().del(`${M}/work_orders/${made[2]!.id}`)).status).toBe(204);
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const headWidth = async (cursor: string) =>
      Number(
        (
          await tenant.db
            .selectFrom('mrs_cursors')
            .select('width')
            .where('id', '=', cursor)
            .where('chunk', '=', 0)
            .executeTakeFirstOrThrow()
        ).width,
      );
    for (const start of ['', '&$page=2']) {
      const feed = Number(seqOf(await h().get(EVENTS)));
      const first = await h().get(`${M}/work_orders?$limit=2${start}`);
      expect(first.status, first.text).toBe(200);
      const cursor = first.headers.get('x-cursor')!;
      expect(isRanged(await headWidth(cursor)), 'the unfiltered list takes the ranged path').toBe(true);
      expect(Number(seqOf(first))).toBe(feed);
      await makeWorkOrder(h());
      const later = await h().get(`${M}/work_orders?$cursor=${cursor}&$page=3`);
      expect(later.status, later.text).toBe(200);
      expect(seqOf(later)).toBe(seqOf(first));
      expect(Number(seqOf(await h().get(`${M}/work_orders?$limit=2${start}`)))).toBe(feed + 1);
    }
  });
});

/** Every page of a search ($deleted=true: membership does not change with deletes): its ids and X-Change-Seq. */
async function listAll(h: Harness): Promise<{ ids: number[]; seq: number }> {
  const first = await h.get(`${M}/work_orders?$deleted=true&$limit=50`);
  expect(first.status, first.text).toBe(200);
  const ids: number[] = first.body.map((r: any) => r.id);
  const pages = Math.ceil(Number(first.headers.get('x-total')) / 50);
  for (let p = 2; p <= pages; p++) {
    const r = await h.get(`${M}/work_orders?$deleted=true&$limit=50&$cursor=${first.headers.get('x-cursor')}&$page=${p}`);
    expect(seqOf(r)).toBe(seqOf(first));
    ids.push(...r.body.map((x: any) => x.id));
  }
  return { ids, seq: Number(seqOf(first)) };
}

for (const name of DATABASES as DatabaseName[]) {
  describe(`a list and then the feed, while others write [${name}]`, () => {
    const services = servicesOnOneDatabase(name);

    it('the snapshot holds exactly the records created up to X-Change-Seq; the feed after it, exactly the others', async () => {
      const hs = services();
      for (let i = 0; i < 20; i++) await makeWorkOrder(hs[0]!);
      let writing = true;
      const write = async (h: Harness, w: number) => {
        for (let i = 0; writing; i++) {
          const r = await h.post(`${M}/work_orders`, { ...WORK_ORDER, priority: w });
          expect(r.status, r.text).toBe(201);
          if (i % 3 === 0) expect((await h.del(`${M}/work_orders/${r.body.id}`)).status).toBe(204);
          else expect((await h.patch(`${M}/work_orders/${r.body.id}`, { priority: i })).status).toBe(200);
        }
      };
      // Followers of the feed read it meanwhile: on PostgreSQL each read numbers new events, as
      // each list's snapshot does, so lists race other numberings (and each other, two at a time).
      const follow = async (h: Harness) => {
        for (let after = 0; writing;) {
          const r = await h.get(`${EVENTS}?$after=${after}&$limit=1000`);
          expect(r.status, r.text).toBe(200);
          if (r.body.length) after = r.body.at(-1).seq;
        }
      };
      const writers = [...Array.from({ length: 4 }, (_, w) => write(hs[w % hs.length]!, w)), ...hs.map(follow)];
      const lists: { ids: number[]; seq: number }[] = [];
      try {
        for (let round = 0; round < 8; round++)
          lists.push(...(await Promise.all([listAll(hs[round % hs.length]!), listAll(hs[(round + 1) % hs.length]!)])));
      } finally {
        writing = false;
        await Promise.all(writers);
      }
      const reader = hs.at(-1)!;
      const all = (await listAll(reader)).ids.sort((a, b) => a - b);
      for (const { ids, seq } of lists) {
        const created: number[] = [];
        for (let after = seq; ;) {
          const r = await reader.get(`${EVENTS}?$after=${after}&$limit=1000&op=create&collection=work_orders`);
          expect(r.status, r.text).toBe(200);
          created.push(...r.body.map((e: any) => e.id));
          if (r.body.length < 1000) break;
          after = r.body.at(-1).seq;
        }
        const inSnapshot = new Set(ids);
        expect(
          created.filter((id) => inSnapshot.has(id)),
          `created after seq ${seq} yet in its snapshot`,
        ).toEqual([]);
        expect(
          [...ids, ...created].sort((a, b) => a - b),
          `a record neither in the snapshot at ${seq} nor created after it`,
        ).toEqual(all);
      }
    }, 120_000);
  });
}
