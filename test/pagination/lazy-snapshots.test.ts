import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { LAZY } from '../../engine/cursor/layout.ts';
import { EVENTS_GONE_KEY } from '../../engine/events/event-log.ts';
import { BASE, describeEachDatabase, M, startHarness, type Harness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

/**
 * Page 1 of a new search is lazy (engine/cursor/lazy.ts): its cursor's ids are made by the first
 * later request, as of the feed's seq the search was asked at. Whatever is created (through the
 * API, or straight into the table as a bulk load does), updated or deleted in between, the pages
 * are what an eager snapshot's would have been (SPEC 5): the records that matched then, in the
 * order of their values then, each shown as it is now.
 */

type Row = { department_id: number; priority: number | null; deleted: boolean };
type Model = Map<number, Row>;

type Change =
  | { kind: 'post'; department: number; priority: number | null }
  | { kind: 'load'; n: number; department: number; priority: number | null }
  | { kind: 'patch'; pick: number; department?: number | undefined; priority?: number | null | undefined }
  | { kind: 'delete'; pick: number };

const department = fc.integer({ min: 1, max: 4 });
const priority = fc.option(fc.integer({ min: 0, max: 5 }), { nil: null });

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('post' as const), department, priority }),
  fc.record({ kind: fc.constant('load' as const), n: fc.integer({ min: 1, max: 3 }), department, priority }),
  fc.record(
    {
      kind: fc.constant('patch' as const),
      pick: fc.nat(),
      department: fc.option(department, { nil: undefined }),
      priority: fc.option(priority, { nil: undefined }),
    },
    { requiredKeys: ['kind', 'pick'] },
  ),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);

const search = fc.record({
  departments: fc.uniqueArray(department, { maxLength: 3 }),
  atLeast: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  order: fc.constantFrom('id:asc', 'id:desc', 'priority:asc', 'priority:desc'),
  deleted: fc.boolean(),
  limit: fc.integer({ min: 1, max: 9 }),
});
type Search = typeof search extends fc.Arbitrary<infer S> ? S : never;

async function apply(h: Harness, model: Model, c: Change): Promise<void> {
  if (c.kind === 'post') {
    const r = await h.post(`${M}/work_orders`, workOrder({ department_id: c.department, priority: c.priority }));
    expect(r.status, r.text).toBe(201);
    model.set(r.body.id, { department_id: c.department, priority: c.priority, deleted: false });
  } else if (c.kind === 'load') {
    for (const id of await insertRecords(
      h,
      'work_orders',
      Array.from({ length: c.n }, () => workOrder({ department_id: c.department, priority: c.priority })),
    ))
      model.set(id, { department_id: c.department, priority: c.priority, deleted: false });
  } else {
    const live = [...model].filter(([, r]) => !r.deleted).map(([id]) => id);
    if (!live.length) return;
    const id = live[c.pick % live.length]!;
    if (c.kind === 'delete') {
      expect((await h.del(`${M}/work_orders/${id}`)).status).toBe(204);
      model.get(id)!.deleted = true;
    } else {
      const body = {
        ...(c.department !== undefined ? { department_id: c.department } : {}),
        ...(c.priority !== undefined ? { priority: c.priority } : {}),
      };
      expect((await h.patch(`${M}/work_orders/${id}`, body)).status).toBe(200);
      Object.assign(model.get(id)!, body);
    }
  }
}

const queryOf = (s: Search) =>
  [
    ...s.departments.map((d) => `department_id=${d}`),
    ...(s.atLeast !== undefined ? [`priority:gte=${s.atLeast}`] : []),
    `$orderBy=${s.order}`,
    ...(s.deleted ? ['$deleted=true'] : []),
    `$limit=${s.limit}`,
  ].join('&');

/** What an eager snapshot of the search takes from the model as it is: ids in order (empty values as the largest, ties by id). */
function naive(model: Model, s: Search): number[] {
  const [field, direction] = s.order.split(':') as ['id' | 'priority', 'asc' | 'desc'];
  const matches = [...model].filter(
    ([, r]) =>
      (s.deleted || !r.deleted) &&
      (s.departments.length === 0 || s.departments.includes(r.department_id)) &&
      (s.atLeast === undefined || (r.priority !== null && r.priority >= s.atLeast)),
  );
  const sign = direction === 'asc' ? 1 : -1;
  return matches
    .sort(([a, ra], [b, rb]) => {
      if (field === 'id') return sign * (a - b);
      const pa = ra.priority ?? Infinity;
      const pb = rb.priority ?? Infinity;
      return pa !== pb ? sign * (pa - pb) : a - b;
    })
    .map(([id]) => id);
}

const ids = (body: any[]) => body.map((r) => r.id);

async function headOf(h: Harness, cursor: string) {
  const tenant = (await h.service.tenants.get('demo.main'))!;
  return tenant.db
    .selectFrom('mrs_cursors')
    .select(['width', 'as_of_id'])
    .where('id', '=', cursor)
    .where('chunk', '=', 0)
    .executeTakeFirstOrThrow();
}

describeEachDatabase('lazy snapshots', (h) => {
  const model: Model = new Map();
  beforeAll(async () => {
    for (let i = 0; i < 30; i++) await apply(h(), model, { kind: 'post', department: 1 + (i % 4), priority: i % 7 === 6 ? null : i % 6 });
  });

  it('pages equal an eager snapshot taken at the first request, whatever is created, loaded, updated and deleted before the next', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(change, { maxLength: 5 }),
        search,
        fc.array(change, { maxLength: 8 }),
        fc.boolean(),
        async (before, s, after, together) => {
          for (const c of before) await apply(h(), model, c);
          const expected = naive(model, s);
          const first = await h().get(`${M}/work_orders?${queryOf(s)}`);
          expect(first.status, first.text).toBe(200);
          expect(Number(first.headers.get('x-total'))).toBe(expected.length);
          expect(ids(first.body)).toEqual(expected.slice(0, s.limit));
          const cursor = first.headers.get('x-cursor')!;
          // Lazy, but for the whole table in id order, which may be ranged at once (as cheap).
          const wholeInIdOrder = !s.departments.length && s.atLeast === undefined && s.order === 'id:asc';
          if (!wholeInIdOrder) expect(Number((await headOf(h(), cursor)).width)).toBe(LAZY);
          for (const c of after) await apply(h(), model, c);
          const last = Math.ceil(expected.length / s.limit);
          const page = (p: number) => h().get(`${M}/work_orders?$cursor=${cursor}&$page=${p}`);
          // The first later requests at once: one makes the ids, the other waits for it.
          const replies = together ? await Promise.all([page(1), page(last + 1)]) : [];
          for (const r of replies) expect(r.status, r.text).toBe(200);
          const records: any[] = [];
          for (let p = 1; p <= last + 1; p++) {
            const r = await page(p);
            expect(r.status, r.text).toBe(200);
            expect(r.headers.get('x-total')).toBe(String(expected.length));
            expect(r.headers.get('x-change-seq')).toBe(first.headers.get('x-change-seq'));
            if (p <= last) expect(r.body).toHaveLength(p < last ? s.limit : expected.length - (last - 1) * s.limit);
            else expect(r.body).toEqual([]);
            records.push(...r.body);
          }
          if (together) expect(replies[1]!.body).toEqual([]);
          expect(ids(records)).toEqual(expected);
          for (const r of records)
            expect({ department_id: r.department_id, priority: r.priority, deleted: r.deleted }).toEqual(model.get(r.id));
          const head = await headOf(h(), cursor);
          expect(head.as_of_id).toBeNull();
          expect(Number(head.width)).not.toBe(LAZY);
        },
      ),
      { numRuns: 25 },
    );
  }, 240_000);

  it('is gone (410) when retention removed events after its seq, and when an event after it lacks the row it replaced', async () => {
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const live = [...model].filter(([, r]) => !r.deleted).map(([id]) => id);
    const ask = async () => {
      const r = await h().get(`${M}/work_orders?$orderBy=id:desc&$limit=2`);
      expect(r.status).toBe(200);
      expect(Number((await headOf(h(), r.headers.get('x-cursor')!)).width)).toBe(LAZY);
      return r.headers.get('x-cursor')!;
    };
    const later = (cursor: string) => h().get(`${M}/work_orders?$cursor=${cursor}&$page=2`);

    // Retention's mark above the cursor's seq: the events after it may be gone.
    const gone = await ask();
    expect((await h().patch(`${M}/work_orders/${live[0]}`, { priority: 3 })).status).toBe(200);
    const mark = await tenant.db.selectFrom('mrs_meta').select('value').where('key', '=', EVENTS_GONE_KEY).executeTakeFirstOrThrow();
    const seq = Number(
      (
        await tenant.db
          .selectFrom('mrs_cursors')
          .select('change_seq')
          .where('id', '=', gone)
          .where('chunk', '=', 0)
          .executeTakeFirstOrThrow()
      ).change_seq,
    );
    await tenant.db
      .updateTable('mrs_meta')
      .set({ value: String(seq + 1) })
      .where('key', '=', EVENTS_GONE_KEY)
      .execute();
    try {
      const r = await later(gone);
      expect([r.status, r.body.type]).toEqual([410, 'urn:maintenance-records:problem:cursor-gone']);
      expect(r.body.detail).toContain('events-gone');
      // And gone for good: its rows are removed.
      expect((await later(gone)).status).toBe(410);
    } finally {
      await tenant.db.updateTable('mrs_meta').set({ value: mark.value }).where('key', '=', EVENTS_GONE_KEY).execute();
    }

    // An update event written without its row (as before the engine kept it).
    const stale = await ask();
    expect((await h().patch(`${M}/work_orders/${live[1]}`, { priority: 4 })).status).toBe(200);
    await tenant.db
      .updateTable('mrs_events')
      .set({ before_row: null })
      .where('record_id', '=', live[1]!)
      .where('op', '=', 'update')
      .execute();
    const r = await later(stale);
    expect(r.status).toBe(410);
    expect(r.body.detail).toContain('events-without-rows');

    // Neither touches a cursor made before them, nor a new search.
    const fine = await ask();
    expect((await later(fine)).status).toBe(200);
  });
});

describeEachDatabase('lazy snapshots under concurrent writes of the same records', (h) => {
  it('each cursor pages the records that matched at its seq, in their order then, as the feed tells it', async () => {
    const made: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await h().post(`${M}/work_orders`, workOrder({ department_id: 9, priority: i % 6 }));
      expect(r.status).toBe(201);
      made.push(r.body.id);
    }
    const query = 'department_id=9&priority:gte=3&$orderBy=priority:desc&$limit=1';
    // PATCHes of two hot records from several clients at once, and new searches among them.
    let rng = 7;
    const next = () => (rng = (rng * 1103515245 + 12345) % 2 ** 31);
    const writers = Array.from({ length: 6 }, async () => {
      for (let i = 0; i < 40; i++) {
        const r = await h().patch(`${M}/work_orders/${made[next() % 2]}`, { priority: next() % 6 });
        expect(r.status, r.text).toBe(200);
      }
    });
    const cursors: { cursor: string; seq: number; total: number }[] = [];
    // Three searchers: searches under way together write their cursors' head rows together (PostgreSQL).
    const searchers = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < 20; i++) {
        const r = await h().get(`${M}/work_orders?${query}`);
        expect(r.status, r.text).toBe(200);
        cursors.push({
          cursor: r.headers.get('x-cursor')!,
          seq: Number(r.headers.get('x-change-seq')),
          total: Number(r.headers.get('x-total')),
        });
      }
    });
    await Promise.all([...writers, ...searchers]);
    // Each record's priority at a seq: its last event up to it (every write here has one).
    const events: any[] = [];
    for (let after = 0; ;) {
      const r = await h().get(`${BASE}/events?$after=${after}&$limit=1000`);
      expect(r.status).toBe(200);
      if (!r.body.length) break;
      events.push(...r.body);
      after = r.body.at(-1).seq;
    }
    for (const c of cursors) {
      const at = new Map<number, number>();
      for (const e of events) if (e.seq <= c.seq && made.includes(e.id)) at.set(e.id, e.record.priority);
      const expected = [...at]
        .filter(([, p]) => p >= 3)
        .sort(([a, pa], [b, pb]) => pb - pa || a - b)
        .map(([id]) => id);
      expect(c.total).toBe(expected.length);
      const seen: number[] = [];
      for (let p = 1; p <= expected.length; p++) {
        const r = await h().get(`${M}/work_orders?$cursor=${c.cursor}&$page=${p}`);
        expect(r.status, r.text).toBe(200);
        seen.push(...ids(r.body));
      }
      expect(seen).toEqual(expected);
    }
  }, 120_000);
});

describeEachDatabase('lazy snapshots of a child list', (h) => {
  it("page what matched under the parent at the first request, in its order then, also after the parent's deletion", async () => {
    const wo = (await h().post(`${M}/work_orders`, workOrder())).body.id;
    const other = (await h().post(`${M}/work_orders`, workOrder())).body.id;
    const notes: number[] = [];
    for (const note of ['d', 'b', 'e', 'a', 'c']) notes.push((await h().post(`${M}/work_orders/${wo}/notes`, { note })).body.id);
    await h().post(`${M}/work_orders/${other}/notes`, { note: 'a0' });
    // By note, descending: e, d, c, b, a.
    const first = await h().get(`${M}/work_orders/${wo}/notes?$orderBy=note:desc&$limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.map((n: any) => n.note)).toEqual(['e', 'd']);
    const cursor = first.headers.get('x-cursor')!;
    expect(Number((await headOf(h(), cursor)).width)).toBe(LAZY);
    // Since: a note renamed to the front, one deleted, one added, one under the other parent,
    // and the parent itself deleted.
    expect((await h().patch(`${M}/notes/${notes[3]}`, { note: 'z' })).status).toBe(200);
    expect((await h().del(`${M}/notes/${notes[1]}`)).status).toBe(204);
    await h().post(`${M}/work_orders/${wo}/notes`, { note: 'y' });
    await h().post(`${M}/work_orders/${other}/notes`, { note: 'x' });
    expect((await h().del(`${M}/work_orders/${wo}`)).status).toBe(204);
    const seen: any[] = [];
    for (let p = 1; p <= 3; p++) {
      const r = await h().get(`${M}/work_orders/${wo}/notes?$cursor=${cursor}&$page=${p}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body);
    }
    // The five as they matched then, in their order then (e, d, c, b, a), each shown as it is now.
    expect(seen.map((n) => n.id)).toEqual([notes[2], notes[0], notes[4], notes[1], notes[3]]);
    expect(seen.map((n) => [n.note, n.deleted])).toEqual([
      ['e', false],
      ['d', false],
      ['c', false],
      ['b', true],
      ['z', false],
    ]);
  });
});

describeEachDatabase('lazy snapshots made by two services at once', (h) => {
  it('each cursor is made once in effect: both answer the same pages, and its rows are whole', async () => {
    // Two services on one database (SQLite: the same file; PostgreSQL: each its own pool, or
    // PgBouncer's in CI), each with its own set of cursors being made: the first later page
    // asked of both at once makes the ids in both, and the database keeps one copy of the rows.
    const cfg = h().service.config;
    const other = await startHarness(h().db, { reuse: { dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl } });
    try {
      const made = await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 5000 }, (_, i) => workOrder({ department_id: 7070, priority: i % 7 })),
      );
      // By priority, highest first, ties by id: deltas over several chunk rows.
      const expected = made
        .map((id, i) => [id, i % 7] as const)
        .sort(([a, pa], [b, pb]) => pb - pa || a - b)
        .map(([id]) => id);
      const tenant = (await h().service.tenants.get('demo.main'))!;
      for (let round = 0; round < 8; round++) {
        const first = await h().get(`${M}/work_orders?department_id=7070&$orderBy=priority:desc&$limit=50`);
        expect(first.status, first.text).toBe(200);
        const cursor = first.headers.get('x-cursor')!;
        const page = (harness: Harness, p: number) => harness.get(`${M}/work_orders?$cursor=${cursor}&$page=${p}`);
        const [a, b] = await Promise.all([page(h(), 2 + round), page(other.harness, 2 + round)]);
        expect([a.status, b.status], a.text + b.text).toEqual([200, 200]);
        expect(ids(a.body)).toEqual(expected.slice((1 + round) * 50, (2 + round) * 50));
        expect(ids(b.body)).toEqual(ids(a.body));
        // Every later page from either service, read back from the rows both wrote.
        for (const p of [1, 50, 100, 101]) {
          const r = await page(round % 2 ? other.harness : h(), p);
          expect(ids(r.body)).toEqual(expected.slice((p - 1) * 50, p * 50));
        }
        const rows = await tenant.db
          .selectFrom('mrs_cursors')
          .select(['chunk', 'width', 'as_of_id'])
          .where('id', '=', cursor)
          .orderBy('chunk')
          .execute();
        expect(rows.map((r) => Number(r.chunk))).toEqual(rows.map((_, i) => i));
        expect(rows.length).toBeGreaterThan(1);
        expect(new Set(rows.map((r) => Number(r.width)))).toEqual(new Set([Number(rows[0]!.width)]));
        expect(rows[0]!.as_of_id).toBeNull();
      }
    } finally {
      await other.stop(true);
    }
  }, 120_000);
});

describeEachDatabase('lazy snapshots after writes of every kind', (h) => {
  it('a batch (PATCH, DELETE), a keyed PATCH, a PUT and a PATCH after the first request leave the pages as they matched then', async () => {
    // Each way a write reaches its event keeps the row it replaced: a batch's and a keyed
    // request's writes run in a transaction (its row read under its lock), a lone PATCH or PUT
    // in one statement on PostgreSQL.
    const made: number[] = [];
    for (let i = 0; i < 6; i++)
      made.push((await h().post(`${M}/work_orders`, workOrder({ department_id: 8080, priority: 5 - i }))).body.id);
    // Priority 5 to 0, ids in order: by priority ascending, the ids reversed.
    const first = await h().get(`${M}/work_orders?department_id=8080&priority:gte=2&$orderBy=priority&$limit=1`);
    expect(first.status, first.text).toBe(200);
    const cursor = first.headers.get('x-cursor')!;
    expect(Number((await headOf(h(), cursor)).width)).toBe(LAZY);
    const expected = [made[3], made[2], made[1], made[0]];
    const batch = await h().request('POST', `${BASE}/batch`, {
      body: {
        operations: [
          { method: 'PATCH', path: `/maintenance/work_orders/${made[0]}`, body: { priority: 0 } },
          { method: 'DELETE', path: `/maintenance/work_orders/${made[1]}` },
        ],
      },
    });
    expect(batch.status, batch.text).toBe(200);
    const keyed = await h().request('PATCH', `${M}/work_orders/${made[2]}`, {
      body: { department_id: 1 },
      headers: { 'idempotency-key': 'lazy-keyed-patch' },
    });
    expect(keyed.status, keyed.text).toBe(200);
    const put = await h().put(`${M}/work_orders/${made[3]}`, workOrder({ department_id: 8080, priority: 9 }));
    expect(put.status, put.text).toBe(200);
    expect((await h().patch(`${M}/work_orders/${made[4]}`, { priority: 3 })).status).toBe(200);
    const seen: number[] = [];
    for (let p = 1; p <= 5; p++) {
      const r = await h().get(`${M}/work_orders?$cursor=${cursor}&$page=${p}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...ids(r.body));
    }
    expect(seen).toEqual(expected);
  });
});

const clock = { t: Date.parse('2026-06-01T08:00:00Z') };

describeEachDatabase(
  'before-rows only while a lazy cursor may need them',
  (h) => {
    it('SQLite keeps the row a write replaced only while the collection has a lazy cursor that may be unmade; PostgreSQL always', async () => {
      // cursor/lazy-mark.ts: a lazy search raises its collection's mark before reading its seq,
      // and a write keeps the row it replaced while the mark is not past.
      const sqlite = h().db === 'sqlite';
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push((await h().post(`${M}/work_orders`, workOrder({ department_id: 9090, priority: i }))).body.id);
      const kept = async (id: number) => {
        const e = await tenant.db
          .selectFrom('mrs_events')
          .select('before_row')
          .where('record_id', '=', id)
          .where('op', '<>', 'create')
          .orderBy(sqlite ? 'seq' : 'pos', 'desc')
          .executeTakeFirstOrThrow();
        return e.before_row !== null;
      };
      const search = async () => {
        const first = await h().get(`${M}/work_orders?department_id=9090&$orderBy=priority&$limit=2`);
        expect(first.status, first.text).toBe(200);
        const cursor = first.headers.get('x-cursor')!;
        expect(Number((await headOf(h(), cursor)).width)).toBe(LAZY);
        return cursor;
      };
      const pages = async (cursor: string) => {
        const seen: number[] = [];
        for (let p = 1; p <= 3; p++) {
          const r = await h().get(`${M}/work_orders?$cursor=${cursor}&$page=${p}`);
          expect(r.status, r.text).toBe(200);
          seen.push(...ids(r.body));
        }
        return seen;
      };

      // No lazy cursor yet: no row kept on SQLite.
      expect((await h().patch(`${M}/work_orders/${made[0]}`, { priority: 0 })).status).toBe(200);
      expect(await kept(made[0]!)).toBe(!sqlite);

      // A lazy search, then writes that move records in and out of its order, one from another
      // service on the same data (the mark is the database's, not a process's): their rows are
      // kept, and its pages are the records as they matched at the search.
      const cursor = await search();
      const cfg = h().service.config;
      const other = await startHarness(h().db, { reuse: { dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl }, now: () => clock.t });
      try {
        expect((await other.harness.patch(`${M}/work_orders/${made[1]}`, { priority: 9 })).status).toBe(200);
      } finally {
        await other.stop(true);
      }
      expect((await h().del(`${M}/work_orders/${made[2]}`)).status).toBe(204);
      expect([await kept(made[1]!), await kept(made[2]!)]).toEqual([true, true]);
      expect(await pages(cursor)).toEqual(made);

      // Once every lazy cursor of the collection has expired, writes keep no rows again...
      clock.t += 10 * 60_000;
      expect((await h().patch(`${M}/work_orders/${made[3]}`, { priority: 7 })).status).toBe(200);
      expect(await kept(made[3]!)).toBe(!sqlite);
      expect((await h().get(`${M}/work_orders?$cursor=${cursor}&$page=2`)).status).toBe(410);

      // ...until the next lazy search raises the mark again.
      const next = await search();
      expect((await h().patch(`${M}/work_orders/${made[4]}`, { priority: 8 })).status).toBe(200);
      expect(await kept(made[4]!)).toBe(true);
      // As matched at the search: priorities 0, 9, -, 7, 4 then; made[4] since moved to 8.
      expect(await pages(next)).toEqual([made[0], made[4], made[3], made[1]]);
    });
  },
  { env: { CURSOR_TTL_S: '60' }, now: () => clock.t },
);
