import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantDb, type TenantDb } from '../../engine/index.ts';
import type { NewEvent } from '../../engine/events/event-log.ts';
import { tableRef } from '../../engine/dialects/table-ref.ts';
import { NUMBER_BATCH } from '../../engine/dialects/postgres/event-log.ts';
import { migrateEngineTables } from '../../engine/schema/engine-tables.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../support/pg.ts';

/**
 * PostgreSQL numbers events after they commit (dialects/postgres/event-log.ts), finding the
 * unnumbered ones from the oldest transaction still running at the last numbering. These pin
 * what that bound must keep: a transaction that commits long after its event was written is
 * still numbered, after everything numbered before; the search for them does not grow with the
 * events numbered before.
 */
const event = (id: number): NewEvent => ({
  collection: 'work_orders',
  id,
  op: 'create',
  changed: [],
  record: `{"id":${id}}`,
  user: 'admin',
  at: '2026-11-28T00:00:00.000Z',
});

describe.skipIf(!TEST_DATABASE_URL)('finding the events to number [postgres]', () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let db: Kysely<any>;
  let t: TenantDb;
  const append = (ids: number[], on: Kysely<any> = t.db) => on.transaction().execute((trx) => t.events.append(t, trx, ids.map(event)));
  const feed = async (after = 0) => (await t.events.read(t, { after, limit: 1000 })).events.map((e) => [e.seq, e.id]);

  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url) }) });
    await sql`create schema "n"`.execute(db);
    t = tenantDb(db, { schema: 'n', key: 'n' });
    await migrateEngineTables(t);
  });
  afterAll(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  it('numbers an event whose transaction commits after later ones were numbered, above them', async () => {
    await append([1]);
    expect(await feed()).toEqual([[1, 1]]);
    // A transaction that writes its event and stays open while others commit and are numbered:
    // each of those numberings saw it running, so none raised the bound past it.
    const late = new pg.Client({ connectionString: fresh.url });
    await late.connect();
    try {
      await late.query('begin');
      await late.query(
        `insert into "n".mrs_events (at, collection, record_id, op, changed, record, username) values ('2026-11-28T00:00:00.000Z', 'work_orders', 99, 'create', '[]', '{"id":99}', null)`,
      );
      for (const id of [2, 3, 4]) {
        await append([id]);
        await t.events.highest(t);
      }
      expect(await feed(1)).toEqual([
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
      await late.query('commit');
    } finally {
      await late.end();
    }
    await append([5]);
    expect(await feed(1)).toEqual([
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 99],
      [6, 5],
    ]);
  });

  it('looks at the events written since the last numbering, not at every event numbered before', async () => {
    // Numbered events stay in the table (and in the index of unnumbered ones, dead) until a
    // vacuum, which this test never runs: a search from the index's start would visit each.
    for (let i = 0; i < 20; i++) {
      await append(Array.from({ length: 100 }, (_, k) => 1000 + i * 100 + k));
      await t.events.highest(t);
    }
    // The bound is the oldest transaction running anywhere on the server: another test's
    // transaction open meanwhile holds it back for a moment, so the search is measured again
    // after the next numbering, a few times at most.
    const search = async () => {
      const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (analyze, buffers, format json)
        select ctid from ${tableRef(t, 'mrs_events')} where seq is null
          and xid >= (select coalesce(numbered_xmin, '0'::xid8) from ${tableRef(t, 'mrs_event_counter')})`.execute(db);
      const plan = (rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan;
      return {
        rows: Number(plan['Actual Rows']),
        blocks: Number(plan['Shared Hit Blocks'] ?? 0) + Number(plan['Shared Read Blocks'] ?? 0),
      };
    };
    let seen = { rows: 0, blocks: Infinity };
    for (let i = 0; i < 10 && seen.blocks >= 8; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      await t.events.highest(t);
      await append([7777 + i]);
      seen = await search();
    }
    // The 2,000 numbered events fill about 25 heap pages and 5 index pages.
    expect(seen.rows).toBe(1);
    expect(seen.blocks).toBeLessThan(8);
    const last = await feed(6 + 2000);
    expect(last.map(([, id]) => id)).toContain(7777);
    expect(last.every(([seq], i) => seq === 2007 + i)).toBe(true);
  });

  it('numbers a backlog of several batches at once, in the order it was written', async () => {
    const before = await t.events.highest(t);
    const n = Math.round(2.5 * NUMBER_BATCH);
    // As if written by many writes while nothing numbered them: one insert, pos in series order.
    await sql`insert into ${tableRef(t, 'mrs_events')} (at, collection, record_id, op, changed, record, username)
      select '2026-11-28T00:00:00.000Z', 'work_orders', 100000 + g, 'create', '[]', '{"id":' || (100000 + g) || '}', null
      from generate_series(1, ${n}) as g`.execute(db);
    expect(await t.events.highest(t)).toBe(before + n);
    const { rows } = await sql<{ seq: unknown; id: unknown }>`select seq, record_id as id from ${tableRef(t, 'mrs_events')}
      where record_id > 100000 order by seq`.execute(db);
    expect(rows.length).toBe(n);
    expect(rows.every((r, i) => Number(r.seq) === before + 1 + i && Number(r.id) === 100001 + i)).toBe(true);
  });
});

/**
 * Random interleavings of transactions that write events and stay open, commit or roll back,
 * with numberings and reads between: every committed event is numbered exactly once, none that
 * was rolled back, and a reader never sees a smaller seq appear after a larger one (SPEC 9), with
 * the bound rising past events whose transactions are still open.
 */
const step = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('write' as const), conn: fc.nat(3) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('end' as const), conn: fc.nat(3), commit: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('number' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('read' as const) }), weight: 1 },
);

describe.skipIf(!TEST_DATABASE_URL)('numbering with transactions open at random [postgres]', () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let db: Kysely<any>;
  const conns: pg.Client[] = [];
  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url) }) });
    for (let i = 0; i < 4; i++) {
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      conns.push(c);
    }
  });
  afterAll(async () => {
    for (const c of conns) await c.end();
    await db?.destroy();
    await fresh?.drop();
  });

  it('numbers every committed event once and never shows a smaller seq after a larger one', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const schema = `p${run++}`;
        await sql`create schema ${sql.id(schema)}`.execute(db);
        const t = tenantDb(db, { schema, key: schema });
        await migrateEngineTables(t);
        const open: (number[] | undefined)[] = [undefined, undefined, undefined, undefined];
        const committed: number[] = [];
        let next = 1;
        let seen: [number, number][] = [];
        const end = async (c: number, commit: boolean) => {
          const ids = open[c];
          if (!ids) return;
          await conns[c]!.query(commit ? 'commit' : 'rollback');
          if (commit) committed.push(...ids);
          open[c] = undefined;
        };
        const read = async () => {
          const page = (await t.events.read(t, { after: 0, limit: 1000 })).events.map((e): [number, number] => [e.seq, e.id]);
          // What was seen before is still the start: nothing appeared below a seq already seen.
          expect(page.slice(0, seen.length)).toEqual(seen);
          expect(page.every(([seq], i) => i === 0 || seq > page[i - 1]![0])).toBe(true);
          seen = page;
        };
        try {
          for (const s of steps) {
            if (s.kind === 'write') {
              if (!open[s.conn]) {
                await conns[s.conn]!.query('begin');
                open[s.conn] = [];
              }
              const id = next++;
              await conns[s.conn]!.query(
                `insert into ${JSON.stringify(schema)}.mrs_events (at, collection, record_id, op, changed, record, username) values ('2026-11-28T00:00:00.000Z', 'work_orders', $1, 'create', '[]', '{}', null)`,
                [id],
              );
              open[s.conn]!.push(id);
            } else if (s.kind === 'end') await end(s.conn, s.commit);
            else if (s.kind === 'number') await t.events.highest(t);
            else await read();
          }
          for (let c = 0; c < 4; c++) await end(c, true);
          await read();
          expect(seen.map(([, id]) => id).sort((a, b) => a - b)).toEqual([...committed].sort((a, b) => a - b));
        } finally {
          for (let c = 0; c < 4; c++) if (open[c]) await end(c, false);
          await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
        }
      }),
      { numRuns: 100 },
    );
  }, 120_000); // a hundred schemas made and dropped: slow on a loaded machine, never a timing claim
});
