import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change, Followed } from '../../client/index.ts';
import { DATABASES } from '../support/harness.ts';
import { resettingProxy, servedService } from '../support/client-service.ts';
import { WORK_ORDER } from '../support/fixtures.ts';

/**
 * Following a collection: the list, then every change once in seq order, through 100 forced
 * disconnects of the stream while records are created, changed and deleted. The records the
 * follower rebuilds equal the database's.
 */
const DROPS = 100;
type Row = { id: number; deleted: boolean; [k: string]: unknown };

const until = async (done: () => boolean, what: string) => {
  for (let i = 0; !done(); i++) {
    if (i > 6000) throw new Error(`waited 60 s for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Applies what follow yields to a map of live records; keeps the seqs seen. */
function rebuild(stream: AsyncGenerator<Followed<Row>>) {
  const records = new Map<number, Row>();
  const changes: Change<Row>[] = [];
  let listed = false;
  const running = (async () => {
    for await (const item of stream) {
      if (item.kind === 'record' && !item.record.deleted) records.set(item.record.id, item.record);
      else if (item.kind === 'listed') listed = true;
      else if (item.kind === 'change') {
        changes.push(item.change);
        if (item.change.op === 'delete') records.delete(item.change.id);
        else records.set(item.change.id, item.change.record);
      }
    }
  })();
  return { records, changes, running, listed: () => listed };
}

for (const db of DATABASES) {
  describe(`follow: list, then the feed, through dropped streams [${db}]`, () => {
    const served = servedService(db);
    let proxy: Awaited<ReturnType<typeof resettingProxy>>;
    beforeAll(async () => {
      proxy = await resettingProxy(served().port);
    });
    afterAll(() => proxy?.close());

    const run = async (transport: 'stream' | 'poll', drops: number, department: number) => {
      const writer = served().client().collection('work_orders');
      for (let i = 0; i < 30; i++) await writer.create({ ...WORK_ORDER, department_id: department });
      const stop = new AbortController();
      const follower = served().client({ baseUrl: `http://127.0.0.1:${proxy.port}/v4_server/external/v1`, backoffMs: 5 });
      const seen = rebuild(
        follower.follow('work_orders', { department_id: department, $limit: 7 }, { transport, pollMs: 20, signal: stop.signal }),
      );
      await until(seen.listed, 'the list');
      const live = [...seen.records.keys()];
      let writes = 0;
      let step = 0;
      for (let dropped = 0; dropped < drops || step < 60; step++) {
        const pick = live[step % live.length]!;
        if (step % 5 === 4 && live.length > 10) {
          await writer.delete(live.splice(step % live.length, 1)[0]!);
        } else if (step % 5 < 2) {
          live.push((await writer.create({ ...WORK_ORDER, department_id: department, priority: step })).id);
        } else {
          await writer.patch(pick, { priority: step, description: `step ${step}` });
        }
        writes++;
        if (dropped < drops && step % 3 === 0) {
          await until(() => proxy.open > 0, 'the follower to reconnect');
          proxy.dropAll();
          dropped++;
        }
      }
      const end = (await writer.search({ $limit: 1 })).changeSeq!;
      await until(() => (seen.changes.at(-1)?.seq ?? 0) >= end, 'the last change');
      stop.abort();
      await seen.running.catch(() => {});
      const seqs = seen.changes.map((c) => c.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      expect(seqs).toHaveLength(writes);
      const rows = new Map<number, Row>();
      for await (const r of writer.list({ department_id: department, $limit: 50 })) rows.set(r.id, r as Row);
      // Records of the department are the follower's; it also saw every record the workload made, and no deleted one.
      const mine = new Map([...seen.records].filter(([, r]) => r.department_id === department));
      expect(mine).toEqual(rows);
      return seen;
    };

    it(`a stream dropped ${DROPS} times: the rebuilt records equal the database's, each change once, in seq order`, async () => {
      const before = proxy.counts.dropped;
      await run('stream', DROPS, 600);
      expect(proxy.counts.dropped - before).toBeGreaterThanOrEqual(DROPS);
    }, 240_000);

    it('polling where a stream is not wanted: the same records, each change once', async () => {
      await run('poll', 10, 601);
    }, 120_000);
  });
}
