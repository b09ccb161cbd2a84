import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, M, type Harness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';
import { make, SERVICE_REQUEST } from '../support/fixtures.ts';
import { EXPIRED_CURSORS_PER_SWEEP } from '../../engine/cursor/cursor-rows.ts';
import { DELTA_ID_LIMIT } from '../../engine/cursor/deltas.ts';
import { ASCENDING_DELTAS, LAZY, idsPerChunk, offsetOf, widthFor } from '../../engine/cursor/layout.ts';
import { postgresDatabase } from '../../engine/dialects/postgres/dialect.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';

/** Ids as layout.ts packs them: each plus its width's base, `width` digits each. */
const packedText = (chunkIds: readonly number[], width: number) => chunkIds.map((id) => String(id + offsetOf(width))).join('');

/**
 * Ids as a chunk row's `ids` column holds them, each offset by its width's base: packed text,
 * or where the database cuts chunk rows itself, its array of the offset ids.
 */
const chunkIdsColumn = (tenant: TenantDb, ids: readonly number[], width: number) =>
  tenant.flavour === postgresDatabase.flavour ? ids.map((id) => id + offsetOf(width)) : packedText(ids, width);

const cursorOf = (link: string | null) => /\$cursor=([^&>]+)/.exec(link ?? '')?.[1];
const ids = (body: any[]) => body.map((r) => r.id);

describeEachDatabase('pagination: cursors, $limit, $page and Link', (h) => {
  let dept7: number[];
  beforeAll(async () => {
    // 25 work orders of department 7 among others, in id order.
    dept7 = [];
    for (let i = 0; i < 5; i++) {
      dept7.push(
        ...(await insertRecords(
          h(),
          'work_orders',
          Array.from({ length: 5 }, (_, k) => workOrder({ department_id: 7, priority: k })),
        )),
      );
      await insertRecords(h(), 'work_orders', [workOrder({ department_id: 8 })]);
    }
  });

  it('creates a cursor on every search: X-Cursor, X-Total and Link on one line with a literal $', async () => {
    const r = await h().get(`${M}/work_orders?department_id=7`);
    expect(r.status).toBe(200);
    const cursor = r.headers.get('x-cursor')!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{22,}$/); // 128 random bits, URL-safe
    expect(r.headers.get('x-total')).toBe('25');
    expect(ids(r.body)).toEqual(dept7.slice(0, 10));
    const p = `${M}/work_orders`;
    expect(r.headers.get('link')).toBe(
      `<${p}?$cursor=${cursor}&$page=1>; rel="first", <${p}?$cursor=${cursor}&$page=2>; rel="next", <${p}?$cursor=${cursor}&$page=3>; rel="last"`,
    );
    const again = await h().get(`${M}/work_orders?department_id=7`);
    expect(again.headers.get('x-cursor')).not.toBe(cursor);
  });

  it('serves later pages from the cursor with prev and next by the rules', async () => {
    const first = await h().get(`${M}/work_orders?department_id=7`);
    const c = first.headers.get('x-cursor')!;
    const p2 = await h().get(`${M}/work_orders?$cursor=${c}&$page=2`);
    expect(ids(p2.body)).toEqual(dept7.slice(10, 20));
    expect(p2.headers.get('x-cursor')).toBe(c);
    expect(p2.headers.get('link')).toContain(`$page=1>; rel="prev"`);
    expect(p2.headers.get('link')).toContain(`$page=3>; rel="next"`);
    const p3 = await h().get(`${M}/work_orders?$cursor=${c}&$page=3`);
    expect(ids(p3.body)).toEqual(dept7.slice(20, 25));
    expect(p3.headers.get('link')).not.toContain('rel="next"');
    const past = await h().get(`${M}/work_orders?$cursor=${c}&$page=9`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    const link = past.headers.get('link')!;
    expect(link).toContain(`$page=3>; rel="prev"`); // prev points at the last page when past it
    expect(link).not.toContain('rel="next"');
    expect(link).toContain('rel="first"');
    expect(link).toContain('rel="last"');
  });

  it('has no Link when nothing matches, but still a cursor', async () => {
    const r = await h().get(`${M}/work_orders?department_id=999`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(r.headers.get('x-total')).toBe('0');
    expect(r.headers.get('x-cursor')).toBeTruthy();
    expect(r.headers.get('link')).toBeNull();
    const later = await h().get(`${M}/work_orders?$cursor=${r.headers.get('x-cursor')}&$page=1`);
    expect(later.status).toBe(200);
    expect(later.body).toEqual([]);
  });

  it('takes $page on the first request too', async () => {
    const r = await h().get(`${M}/work_orders?department_id=7&$page=2&$limit=4`);
    expect(ids(r.body)).toEqual(dept7.slice(4, 8));
    expect(r.headers.get('link')).toContain('$page=1>; rel="prev"');
    expect(r.headers.get('link')).toContain('$page=7>; rel="last"');
    // Past the last page on the first request: 200 with [], prev pointing at the last page,
    // in id order (read in the snapshot's own statement) and in another order alike.
    for (const order of ['', '&$orderBy=priority:desc']) {
      const past = await h().get(`${M}/work_orders?department_id=7&$page=8&$limit=4${order}`);
      expect(past.status).toBe(200);
      expect(past.body).toEqual([]);
      expect(past.headers.get('x-total')).toBe(String(dept7.length));
      expect(past.headers.get('link')).toContain('$page=7>; rel="prev"');
      expect(past.headers.get('link')).not.toContain('rel="next"');
    }
  });

  it('$limit: default 10, over 50 served as 50, bad values 400, fixed at creation', async () => {
    await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 60 }, () => workOrder({ department_id: 50 })),
    );
    expect((await h().get(`${M}/work_orders?department_id=50`)).body).toHaveLength(10);
    const big = await h().get(`${M}/work_orders?department_id=50&$limit=80`);
    expect(big.body).toHaveLength(50);
    const c = big.headers.get('x-cursor');
    // Existing clients resend $limit: 80 equals the served 50.
    const p2 = await h().get(`${M}/work_orders?department_id=50&$limit=80&$cursor=${c}&$page=2`);
    expect(p2.status).toBe(200);
    expect(p2.body).toHaveLength(10);
    expect((await h().get(`${M}/work_orders?$limit=50&$cursor=${c}&$page=2`)).status).toBe(200);
    const changed = await h().get(`${M}/work_orders?$limit=20&$cursor=${c}&$page=2`);
    expect(changed.status).toBe(400);
    expect(changed.body.errors[0].parameter).toBe('$limit');
    for (const bad of ['0', '-1', '1.5', 'abc', '']) expect((await h().get(`${M}/work_orders?$limit=${bad}`)).status, bad).toBe(400);
  });

  it('bad $page is 400', async () => {
    for (const bad of ['0', '-2', 'x', '1.5']) {
      const r = await h().get(`${M}/work_orders?$page=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.errors[0].parameter).toBe('$page');
    }
  });

  it('later requests may repeat the filters, $orderBy and $deleted with their own values only', async () => {
    const first = await h().get(`${M}/work_orders?department_id=7&department_id=8&priority:gte=1&$orderBy=priority:desc&$limit=5`);
    const c = first.headers.get('x-cursor');
    const ok = [
      `department_id=7&department_id=8&priority:gte=1&$orderBy=priority:desc&$limit=5`,
      `department_id:eq=8&department_id=7`, // same set, other order, plain and :eq mixed
      `priority:gte=1`, // filters may be left out
      `$orderBy=priority desc&$deleted=false`,
      ``,
    ];
    for (const q of ok) expect((await h().get(`${M}/work_orders?${q}&$cursor=${c}&$page=2`)).status, q).toBe(200);
    const bad: [string, string][] = [
      ['department_id=7', 'department_id'],
      ['priority:gte=2', 'priority:gte'],
      ['status=open', 'status'],
      ['$orderBy=priority', '$orderBy'],
      ['$deleted=true', '$deleted'],
    ];
    for (const [q, parameter] of bad) {
      const r = await h().get(`${M}/work_orders?${q}&$cursor=${c}&$page=2`);
      expect(r.status, q).toBe(400);
      expect(
        r.body.errors.map((e: any) => e.parameter),
        q,
      ).toContain(parameter);
    }
  });

  it('an unknown cursor is 410; a bad query is 400 first', async () => {
    const r = await h().get(`${M}/work_orders?$cursor=AAAAAAAAAAAAAAAAAAAAAA&$page=2`);
    expect(r.status).toBe(410);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect((await h().get(`${M}/work_orders?$cursor=x'%20or%201=1--`)).status).toBe(410);
    expect((await h().get(`${M}/work_orders?nope=1&$cursor=AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(400);
  });

  it('a cursor belongs to its collection and parent', async () => {
    const c = (await h().get(`${M}/work_orders?department_id=7`)).headers.get('x-cursor');
    expect((await h().get(`${M}/service_requests?$cursor=${c}`)).status).toBe(410);
    const wo = (await h().post(`${M}/work_orders`, workOrder())).body.id;
    const other = (await h().post(`${M}/work_orders`, workOrder())).body.id;
    const notes = await h().get(`${M}/work_orders/${wo}/notes`);
    const nc = notes.headers.get('x-cursor');
    expect((await h().get(`${M}/work_orders/${wo}/notes?$cursor=${nc}`)).status).toBe(200);
    expect((await h().get(`${M}/work_orders/${other}/notes?$cursor=${nc}`)).status).toBe(410);
    expect((await h().get(`${M}/notes?$cursor=${nc}`)).status).toBe(410);
  });

  it('a cursor belongs to the user who made it', async () => {
    const c = (await h().get(`${M}/work_orders?department_id=7`)).headers.get('x-cursor');
    const other = await h().login({ username: 'someone_else' });
    expect((await h().as(other.token).get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(410);
    const sameUser = await h().login(); // another key of the same user may go on
    expect((await h().as(sameUser.token).get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(200);
    const otherTenant = await h().login({ clientDb: 'other.main' });
    expect((await h().as(otherTenant.token).get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(410);
  });

  it('accepts percent-encoded reserved names as existing clients send them', async () => {
    const first = await h().get(`${M}/work_orders?department_id=7`);
    const c = first.headers.get('x-cursor');
    const r = await h().get(`${M}/work_orders?%24cursor=${c}&%24page=2&%24limit=10&department_id=7`);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(dept7.slice(10, 20));
  });
});

describeEachDatabase('pagination: the snapshot', (h) => {
  it('pages show current values in snapshot order with exact page sizes, whatever changed since', async () => {
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 30 }, (_, i) => workOrder({ department_id: 3, priority: i % 4 })),
    );
    const first = await h().get(`${M}/work_orders?department_id=3&$orderBy=priority&$limit=7`);
    const c = first.headers.get('x-cursor');
    const order = [...made].sort((a, b) => ((a - made[0]!) % 4) - ((b - made[0]!) % 4) || a - b);
    expect(ids(first.body)).toEqual(order.slice(0, 7));
    // Changes after the snapshot: a new match, an edit that stops matching, a soft delete.
    await h().post(`${M}/work_orders`, workOrder({ department_id: 3, priority: 0 }));
    const edited = order[8]!;
    const removed = order[9]!;
    expect((await h().patch(`${M}/work_orders/${edited}`, { department_id: 4, priority: 3 })).status).toBe(200);
    expect((await h().del(`${M}/work_orders/${removed}`)).status).toBe(204);
    const p2 = await h().get(`${M}/work_orders?$cursor=${c}&$page=2`);
    expect(ids(p2.body)).toEqual(order.slice(7, 14));
    const e = p2.body.find((r: any) => r.id === edited);
    expect(e.department_id).toBe(4);
    expect(e.priority).toBe(3);
    expect(p2.body.find((r: any) => r.id === removed).deleted).toBe(true);
    const all: number[] = [];
    for (let page = 1; page <= 5; page++) {
      const r = await h().get(`${M}/work_orders?$cursor=${c}&$page=${page}`);
      expect(r.headers.get('x-total')).toBe('30');
      if (page < 5) expect(r.body).toHaveLength(7);
      all.push(...ids(r.body));
    }
    expect(all).toEqual(order);
  });

  it('child lists paginate with the child path in Link', async () => {
    const wo = (await h().post(`${M}/work_orders`, workOrder())).body.id;
    for (let i = 0; i < 12; i++) expect((await h().post(`${M}/work_orders/${wo}/notes`, { note: `n${i}` })).status).toBe(201);
    const r = await h().get(`${M}/work_orders/${wo}/notes?$limit=5&note:like=n%25`);
    expect(r.headers.get('x-total')).toBe('12');
    const c = r.headers.get('x-cursor');
    expect(r.headers.get('link')).toContain(`<${M}/work_orders/${wo}/notes?$cursor=${c}&$page=2>; rel="next"`);
    const p3 = await h().get(`${M}/work_orders/${wo}/notes?$cursor=${c}&$page=3`);
    expect(p3.body.map((n: any) => n.note)).toEqual(['n10', 'n11']);
    // Without filters too: the parent's notes only, in id order.
    await h().post(`${M}/work_orders/${(await h().post(`${M}/work_orders`, workOrder())).body.id}/notes`, { note: 'elsewhere' });
    const unfiltered = await h().get(`${M}/work_orders/${wo}/notes?$limit=50`);
    expect(unfiltered.headers.get('x-total')).toBe('12');
    expect(unfiltered.body.map((n: any) => n.note)).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`));
  });

  it('a client pages through 1,234 records the way existing clients do', async () => {
    await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 1234 }, (_, i) => workOrder({ department_id: 12, priority: i % 7 })),
    );
    await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 100 }, () => workOrder({ department_id: 13 })),
    );
    const filters = 'department_id=12&priority:ne=99';
    const first = await h().get(`${M}/work_orders?${filters}&$limit=50`);
    const total = Number(first.headers.get('x-total'));
    expect(total).toBe(1234);
    const cursor = cursorOf(first.headers.get('link'));
    expect(cursor).toBe(first.headers.get('x-cursor'));
    const seen = new Map<number, number>();
    for (const r of first.body) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
    for (let page = 2; seen.size < total && page < 100; page++) {
      const r = await h().get(`${M}/work_orders?${filters}&$limit=50&$cursor=${cursor}&$page=${page}`);
      expect(r.status).toBe(200);
      for (const rec of r.body) seen.set(rec.id, (seen.get(rec.id) ?? 0) + 1);
    }
    expect(seen.size).toBe(1234);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  });
});

describeEachDatabase('pagination: searches of the whole table', (h) => {
  let live: number[];
  let all: number[];
  const walk = async (query: string) => {
    const first = await h().get(`${M}/work_orders?${query}&$limit=7`);
    const c = first.headers.get('x-cursor');
    const seen = ids(first.body);
    for (let page = 2; page <= Math.ceil(Number(first.headers.get('x-total')) / 7); page++)
      seen.push(...ids((await h().get(`${M}/work_orders?$cursor=${c}&$page=${page}`)).body));
    return { total: Number(first.headers.get('x-total')), seen };
  };
  beforeAll(async () => {
    all = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 40 }, (_, i) => workOrder({ priority: i % 3 })),
    );
    const deleted = all.filter((_, i) => i % 5 === 2);
    for (const id of deleted) expect((await h().del(`${M}/work_orders/${id}`)).status).toBe(204);
    live = all.filter((id) => !deleted.includes(id));
  });

  it('an unfiltered search pages every live record in id order; with $deleted=true every record', async () => {
    expect(await walk('')).toEqual({ total: live.length, seen: live });
    expect(await walk('$deleted=true')).toEqual({ total: all.length, seen: all });
    expect(await walk('$orderBy=id:desc')).toEqual({ total: live.length, seen: [...live].reverse() });
  });

  it('a search whose index lookup is a range or a list of values pages in id order too, the first time and after', async () => {
    // Fed to the aggregate in the plan's order on SQLite: a range of the priority index gives
    // the ids priority by priority, which the store finds out of order and packs again ordered.
    const byPriority = (keep: (p: number) => boolean) => all.filter((id, i) => keep(i % 3) && live.includes(id));
    for (let round = 0; round < 2; round++) {
      expect(await walk('priority:gt=0')).toEqual({ total: byPriority((p) => p > 0).length, seen: byPriority((p) => p > 0) });
      expect(await walk('priority=2&priority=0')).toEqual({ total: byPriority((p) => p !== 1).length, seen: byPriority((p) => p !== 1) });
      expect(await walk('priority=1')).toEqual({ total: byPriority((p) => p === 1).length, seen: byPriority((p) => p === 1) });
    }
  });

  it('SQLite packs them from a scan of the table, and in id order even when its scans run backwards', async (ctx) => {
    if (h().db !== 'sqlite') ctx.skip(); // the scan is SQLite's (engine/dialects/sqlite/snapshot-store.ts)
    const t = (await h().service.tenants.get('demo.main'))!;
    // A debugging setting that reverses every scan SQL gives no order to.
    await sql`pragma reverse_unordered_selects = on`.execute(t.db);
    try {
      expect((await sql<{ p: string }>`select group_concat(id, ',') as p from work_orders not indexed`.execute(t.db)).rows[0]!.p).toBe(
        [...all].reverse().join(','),
      );
      expect(await walk('')).toEqual({ total: live.length, seen: live });
    } finally {
      await sql`pragma reverse_unordered_selects = off`.execute(t.db);
    }
  });
});

describeEachDatabase(
  'pagination: expiry',
  (h) => {
    it('expires cursors after CURSOR_TTL_S without use, refreshes on use, and removes expired ones', async () => {
      const ttl = 60_000;
      const start = Date.now();
      clock.t = start;
      await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 3 }, () => workOrder()),
      );
      const c = (await h().get(`${M}/work_orders?$limit=1`)).headers.get('x-cursor');
      clock.t = start + ttl - 1_000;
      expect((await h().get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(200); // used: lives on
      clock.t = start + 2 * ttl - 2_000;
      expect((await h().get(`${M}/work_orders?$cursor=${c}&$page=3`)).status).toBe(200);
      clock.t = start + 4 * ttl;
      expect((await h().get(`${M}/work_orders?$cursor=${c}&$page=1`)).status).toBe(410);
      // Storage stays bounded: a new search sweeps expired cursors away.
      const stale = (await h().get(`${M}/work_orders`)).headers.get('x-cursor');
      clock.t += 2 * ttl;
      await h().get(`${M}/work_orders`);
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const left = await tenant.db.selectFrom('mrs_cursors').select('id').distinct().execute();
      expect(left.map((r) => r.id)).not.toContain(stale);
      expect(left).toHaveLength(1);
    });

    it('sweeps a backlog of expired cursors a batch per new search, never all in one statement', async () => {
      clock.t = Date.now() + 10 * 60_000; // past every cursor the test before left
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const backlog = 2 * EXPIRED_CURSORS_PER_SWEEP + 50;
      // Expired cursors of two rows each, as a busy minute leaves them.
      const rows = Array.from({ length: backlog }, (_, i) =>
        [0, 1].map((chunk) => ({
          id: `zzexpired${String(i).padStart(6, '0')}`,
          chunk,
          total: 300,
          width: 10,
          collection: 'work_orders',
          scope: '',
          owner: '',
          query: chunk === 0 ? '{}' : '',
          page_size: 10,
          expires_at: 1,
          ids: chunkIdsColumn(tenant, [], 10),
        })),
      ).flat();
      for (let i = 0; i < rows.length; i += 100)
        await tenant.db
          .insertInto('mrs_cursors')
          .values(rows.slice(i, i + 100))
          .execute();
      // Every expired cursor, the earlier tests' included.
      const expiredLeft = async () =>
        Number(
          (
            await tenant.db
              .selectFrom('mrs_cursors')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('expires_at', '<', clock.t)
              .where('chunk', '=', 0)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const counts = [await expiredLeft()];
      expect(counts[0]).toBeGreaterThanOrEqual(backlog);
      for (let i = 0; i < 4; i++) {
        expect((await h().get(`${M}/work_orders`)).status).toBe(200);
        counts.push(await expiredLeft());
      }
      const n = counts[0]!;
      expect(counts).toEqual([n, n - EXPIRED_CURSORS_PER_SWEEP, n - 2 * EXPIRED_CURSORS_PER_SWEEP, 0, 0]);
    });
  },
  { env: { CURSOR_TTL_S: '60' }, now: () => clock.t },
);

describeEachDatabase(
  'pagination: a cursor kept alive by another process',
  (h) => {
    it('is served by a process whose own memory of it has expired, once the database says it lives on', async () => {
      const { startHarness } = await import('../support/harness.ts');
      const s = h().service.config;
      const other = await startHarness(h().db, {
        reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl },
        env: { CURSOR_TTL_S: '60' },
        now: () => shared.t,
      });
      try {
        const start = Date.now();
        shared.t = start;
        await insertRecords(
          h(),
          'work_orders',
          Array.from({ length: 40 }, () => workOrder({ department_id: 31 })),
        );
        const c = (await h().get(`${M}/work_orders?department_id=31`)).headers.get('x-cursor');
        shared.t = start + 50_000; // the other process uses the cursor, moving its expiry on
        expect((await other.harness.get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(200);
        shared.t = start + 100_000; // past what the first process remembers, not past the new expiry
        const r = await h().get(`${M}/work_orders?$cursor=${c}&$page=3`);
        expect(r.status).toBe(200);
        expect(r.body).toHaveLength(10);
        shared.t = start + 300_000; // unused for longer than the TTL: gone for both
        expect((await h().get(`${M}/work_orders?$cursor=${c}&$page=4`)).status).toBe(410);
        expect((await other.harness.get(`${M}/work_orders?$cursor=${c}&$page=4`)).status).toBe(410);
      } finally {
        await other.stop(true);
      }
    });
  },
  { env: { CURSOR_TTL_S: '60' }, now: () => shared.t },
);

const shared = { t: Date.now() };

const clock = { t: Date.now() };

describeEachDatabase('pagination: shared by processes on one database', (h) => {
  let other: Harness | undefined;
  it('a cursor made by one server process is served by another', async () => {
    const { startHarness } = await import('../support/harness.ts');
    const s = h().service.config;
    const second = await startHarness(h().db, { reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl } });
    other = second.harness;
    try {
      await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 15 }, () => workOrder({ department_id: 21 })),
      );
      const c = (await h().get(`${M}/work_orders?department_id=21`)).headers.get('x-cursor');
      const r = await other.get(`${M}/work_orders?$cursor=${c}&$page=2`);
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(5);
    } finally {
      await second.stop(true);
    }
  });
});

describeEachDatabase('pagination: ids of every size', (h) => {
  it('a cursor packs ids at the width the largest id needs, and every page gives them back, at each boundary', async () => {
    const tenant = (await h().service.tenants.get('demo.main'))!;
    // Eager (a search that starts on page 2) or lazy (page 1: its ids made by the first later page).
    const walk = async (eager: boolean) => {
      const first = await h().get(`${M}/work_orders?department_id=42&$limit=2${eager ? '&$page=2' : ''}`);
      const cursor = first.headers.get('x-cursor')!;
      const seen: number[] = [];
      for (let page = 1; seen.length < Number(first.headers.get('x-total')); page++) {
        const r = await h().get(`${M}/work_orders?department_id=42&$limit=2&$cursor=${cursor}&$page=${page}`);
        expect(r.status).toBe(200);
        seen.push(...ids(r.body));
      }
      const head = await tenant.db
        .selectFrom('mrs_cursors')
        .select('width')
        .where('id', '=', cursor)
        .where('chunk', '=', 0)
        .executeTakeFirstOrThrow();
      return { seen, width: Number(head.width) };
    };
    const inserted: number[] = [];
    // Each boundary of the width ladder: the largest id needs one digit more past it. The last
    // is odd and past 2^53 once offset at width 16 (a double holds the id, not id + 10^15).
    for (const id of [1, 8, 9, 89, 90, 899_999, 900_000, 8_999_999_999, 9_000_000_000, 123_456_789_012_345, 8_007_199_254_740_993]) {
      await insertRecords(h(), 'work_orders', [workOrder({ id, department_id: 42 })]);
      inserted.push(id);
      // Ids in id order that deltas take are written as ascending deltas (engine/cursor/deltas.ts);
      // the rest packed. PostgreSQL packs a search whose last snapshot was small (every one here
      // but the first) in SQL.
      const deltas = id < DELTA_ID_LIMIT && (h().db === 'sqlite' || inserted.length === 1);
      const width = deltas ? ASCENDING_DELTAS : widthFor(id);
      expect(await walk(true)).toEqual({ seen: inserted, width });
      // Made lazily (engine/cursor/lazy.ts): ranged, deltas or packed as the ids need, never left lazy.
      const lazy = await walk(false);
      expect(lazy.seen).toEqual(inserted);
      expect(lazy.width).not.toBe(LAZY);
    }
  });
});

describeEachDatabase('pagination: cursors written before narrower widths', (h) => {
  it.each([10, 16])('are read as they were written: %i-digit ids, 192 a chunk row', async (width) => {
    const department_id = 70 + width;
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 500 }, () => workOrder({ department_id })),
    );
    const first = await h().get(`${M}/work_orders?department_id=${department_id}&$limit=50`);
    const cursor = first.headers.get('x-cursor')!;
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const head = await tenant.db
      .selectFrom('mrs_cursors')
      .selectAll()
      .where('id', '=', cursor)
      .where('chunk', '=', 0)
      .executeTakeFirstOrThrow();
    // The same snapshot in the layout earlier versions wrote, in place of the new one.
    await tenant.db.deleteFrom('mrs_cursors').where('id', '=', cursor).execute();
    const old = Array.from({ length: Math.ceil(made.length / 192) }, (_, chunk) => ({
      ...head,
      chunk,
      width,
      query: chunk === 0 ? head.query : '',
      ids: chunkIdsColumn(tenant, made.slice(chunk * 192, (chunk + 1) * 192), width),
      // PostgreSQL's rows of ascending deltas keep them beside `ids`: none then.
      ...('deltas' in head ? { deltas: null } : {}),
    }));
    await tenant.db.insertInto('mrs_cursors').values(old).execute();
    const seen: number[] = [];
    for (let page = 1; page <= 10; page++) seen.push(...ids((await h().get(`${M}/work_orders?$cursor=${cursor}&$page=${page}`)).body));
    expect(seen).toEqual(made);
  });
});

describeEachDatabase('pagination: chunk rows as written', (h) => {
  it('PostgreSQL stores a full chunk row of ids uncompressed, and pages read it back', async (ctx) => {
    if (h().db !== 'postgres') ctx.skip(); // TOAST compression is PostgreSQL's (its engine tables keep chunk rows under its threshold)
    // A child list: its scope (the parent) takes the chunk row past the ~2 KB where PostgreSQL compresses.
    const sr = await make(h(), 'service_requests', SERVICE_REQUEST);
    // Consecutive seven-digit ids: their values compress (in the bigint array PostgreSQL's rows
    // hold, to about a quarter).
    const made = await insertRecords(
      h(),
      'work_orders',
      Array.from({ length: 700 }, (_, i) => workOrder({ id: 5_000_001 + i, service_request_id: sr.id })),
    );
    // In descending id order: a search in ascending id order is written as deltas, not packed.
    made.reverse();
    // Starting on page 2: page 1's cursor would be lazy (engine/cursor/lazy.ts), its ids made later.
    const first = await h().get(`${M}/service_requests/${sr.id}/work_orders?$limit=50&$orderBy=id:desc&$page=2`);
    const cursor = first.headers.get('x-cursor')!;
    const tenant = (await h().service.tenants.get('demo.main'))!;
    const rows = await tenant.db
      .selectFrom('mrs_cursors')
      .select([sql<number>`pg_column_size(ids)`.as('stored'), sql<number>`8 * cardinality(ids)`.as('written')])
      .where('id', '=', cursor)
      .orderBy('chunk')
      .execute();
    expect(rows.length).toBeGreaterThan(1); // the first row is full
    const full = rows[0]!;
    expect(Number(full.written)).toBeGreaterThan(2000); // 274 ids of 8 bytes
    // Uncompressed: the ids and the array's header.
    expect(Number(full.stored)).toBeGreaterThanOrEqual(Number(full.written));
    const seen: number[] = [];
    for (let page = 1; page <= 14; page++)
      seen.push(...ids((await h().get(`${M}/service_requests/${sr.id}/work_orders?$cursor=${cursor}&$page=${page}`)).body));
    expect(seen).toEqual(made);
  });
});

describeEachDatabase('pagination: a large snapshot', (h) => {
  it('a snapshot of 100,000 ids (more chunk rows than one INSERT takes) serves every page whole and in order', async () => {
    const { seedWorkOrders } = await import('../../server/seed.ts');
    const tenant = (await h().service.tenants.get('demo.main'))!;
    await seedWorkOrders(tenant, h().service.engine.registry, 100_000);
    const first = await h().get(`${M}/work_orders?department_id:gte=1&$limit=50`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total')).toBe('100000');
    const c = first.headers.get('x-cursor');
    const base = first.body[0].id as number;
    expect(ids(first.body)).toEqual(Array.from({ length: 50 }, (_, i) => base + i));
    for (const page of [2, 1000, 1999, 2000]) {
      const r = await h().get(`${M}/work_orders?$cursor=${c}&$page=${page}`);
      expect(ids(r.body)).toEqual(Array.from({ length: 50 }, (_, i) => base + (page - 1) * 50 + i));
    }
    expect((await h().get(`${M}/work_orders?$cursor=${c}&$page=2001`)).body).toEqual([]);
  }, 60_000);
});
