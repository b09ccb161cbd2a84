/**
 * Fuzzing the list query: random and hostile query strings never give a 500 (every answer is a
 * 200 or a 4xx problem+json, and no database statement fails), and request values never reach
 * SQL as text. The engine runs on a test-only tenant whose Kysely logs every compiled statement.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/create-engine.ts';
import type { TenantDb } from '../../engine/dialects/types.ts';
import { tenantDb } from '../../engine/tenant-db.ts';
import { allowAll } from '../../engine/http/caller.ts';
import { loadResources } from '../../server/load-resources.ts';
import { DATABASES, M, type DatabaseName } from '../support/harness.ts';
import { freshPostgresDatabase, testPool } from '../support/pg.ts';

const RUNS = Number(process.env.FILTER_FUZZ_RUNS ?? 150);

interface Target {
  engine: Engine;
  /** Every statement the engine ran, and every statement that failed, since the last reset. */
  log: LogEvent[];
  unexpected: unknown[];
  close: () => Promise<void>;
}

async function openTarget(kind: DatabaseName): Promise<Target> {
  const log: LogEvent[] = [];
  const unexpected: unknown[] = [];
  const onLog = (e: LogEvent) => void log.push(e);
  let tenant: TenantDb;
  let close: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-fuzz-'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(join(dir, 'fuzz.sqlite')) }), log: onLog });
    tenant = tenantDb(db, { key: 'fuzz.main' });
    close = async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const fresh = await freshPostgresDatabase();
    const pool = testPool(fresh.url, 2);
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: onLog });
    await db.schema.createSchema('fuzz.main').execute();
    tenant = tenantDb(db, { key: 'fuzz.main', schema: 'fuzz.main' });
    close = async () => {
      await db.destroy();
      await fresh.drop();
    };
  }
  const engine = createEngine({
    resources: await loadResources(),
    resolveCaller: async () => ({ tenant, user: undefined, can: allowAll() }),
    onUnexpectedError: (e) => void unexpected.push(e),
  });
  await engine.migrate(tenant);
  const post = (path: string, body: unknown) =>
    engine.fetch(
      new Request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  for (const [i, status] of ['open', "it's", 'a%b_c\\d', 'ÉCOLE', '😀'].entries()) {
    const r = await post(`${M}/work_orders`, {
      department_id: i,
      work_order_type_id: 1,
      work_order_type_group_id: 1,
      status,
      priority: i % 2 ? null : i,
    });
    expect(r.status).toBe(201);
    expect((await post(`${M}/work_orders/${(await r.json()).id}/notes`, { note: `note ${status}` })).status).toBe(201);
  }
  return { engine, log, unexpected, close };
}

const PATHS = [`${M}/work_orders`, `${M}/work_orders/1/notes`, `${M}/service_requests`, `${M}/notes`];

/** Sends a raw query string; checks the answer is a 200 array or a 4xx problem, and nothing failed. */
async function ask(t: Target, path: string, rawQuery: string): Promise<Response> {
  t.log.length = 0;
  t.unexpected.length = 0;
  const res = await t.engine.fetch(new Request(`http://localhost${path}?${rawQuery}`));
  const text = await res.text();
  const where = `${path}?${rawQuery.slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`;
  expect(t.unexpected, where).toEqual([]);
  expect(
    t.log.filter((e) => e.level === 'error').map((e) => (e as { error: unknown }).error),
    where,
  ).toEqual([]);
  if (res.status === 200) {
    expect(Array.isArray(JSON.parse(text)), where).toBe(true);
  } else {
    expect(res.status >= 400 && res.status < 500, where).toBe(true);
    expect(res.headers.get('content-type'), where).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(text);
    expect(body.status, where).toBe(res.status);
    if (res.status === 400)
      expect(
        body.errors.every((e: any) => typeof e.parameter === 'string' && e.message),
        where,
      ).toBe(true);
  }
  return res;
}

// Pieces of hostile query strings: SQL, quotes, comments, operators, unicode, broken percent-encoding.
const HOSTILE = [
  "'",
  '"',
  '`',
  ';',
  '--',
  '/*',
  '*/',
  "' OR '1'='1",
  '1; DROP TABLE work_orders; --',
  '1) OR (1=1',
  "') UNION SELECT * FROM mrs_cursors --",
  '$1',
  '?',
  ':name',
  '\\',
  '\\\\',
  '%',
  '%%',
  '%zz',
  '%4',
  '%00',
  '%ED%A0%80',
  '%C0%AE',
  '%FF%FE',
  '%E2%82',
  '+',
  '%2B',
  '&',
  '=',
  '==',
  ':',
  '::',
  'NULL',
  'null',
  'true',
  'false',
  '-0',
  '1e999',
  '9'.repeat(40),
  'NaN',
  '0x1F',
  '2023-02-30',
  '2024-02-29',
  '0000-01-01',
  'É',
  '😀',
  '\u202e',
  '\ufeff',
  'like',
  'ilike',
  'eq',
  'ne',
  'gt',
  'null',
  'asc',
  'desc',
  'id',
  'status',
  'priority',
  'created',
  'note',
  'deleted',
  '__proto__',
  'constructor',
];
const NAMES = [
  'status',
  'priority',
  'department_id',
  'id',
  'created',
  'note',
  'description',
  '$orderBy',
  '$deleted',
  '$limit',
  '$page',
  '$cursor',
  '$',
  '$$',
  'status:like',
  'status:ilike',
  'priority:null',
  'status:eq:eq',
  ':',
  '',
];
const piece = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('%', '2', '5', 'a', 'F', '&', '=', ':', '+', '\\'), maxLength: 10 }),
);
const text = fc.array(piece, { maxLength: 4 }).map((p) => p.join(''));
/** Some parts sent raw (whatever the URL parser makes of them), some percent-encoded. */
const part = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...NAMES),
      fc.constantFrom('', ':eq', ':ne', ':gt', ':like', ':ilike', ':null', ':LIKE', ':x'),
      text,
      fc.boolean(),
    )
    .map(([n, op, v, enc]) => (enc ? `${encodeURIComponent(n + op)}=${encodeURIComponent(v)}` : `${n}${op}=${v}`)),
  text,
);
const hostileQuery = fc.array(part, { maxLength: 8 }).map((parts) => parts.join('&'));

for (const kind of DATABASES) {
  describe(`fuzzing list queries [${kind}]`, () => {
    let t: Target;
    beforeAll(async () => {
      t = await openTarget(kind);
    });
    afterAll(async () => t?.close());

    it(`${RUNS} random hostile query strings: 200 or a 4xx problem, never a failed statement`, async () => {
      let ok = 0;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...PATHS), hostileQuery, async (path, q) => {
          if ((await ask(t, path, q)).status === 200) ok++;
        }),
        { numRuns: RUNS },
      );
      expect(ok).toBeGreaterThan(0); // some reach the database
    }, 120_000);

    it('request values reach the database as parameters, never as SQL text', async () => {
      let reached = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('status', 'status:ne', 'status:like', 'status:ilike', 'status:gt', 'note:eq', 'note:like'),
          fc.constantFrom(...HOSTILE.filter((h) => !h.startsWith('%'))),
          fc.nat(),
          async (param, hostile, n) => {
            const marker = `Qz${n}xW`;
            const value = `${hostile}${marker}${hostile}`;
            const path = param.startsWith('note') ? `${M}/notes` : `${M}/work_orders`;
            const pattern = /like/.test(param);
            // a pattern must not end in a lone backslash: that one is refused before any SQL
            const sent = pattern && /(^|[^\\])(\\\\)*\\$/.test(value) ? `${value}\\` : value;
            const res = await ask(
              t,
              path,
              `${encodeURIComponent(param)}=${encodeURIComponent(sent)}&$orderBy=${encodeURIComponent(`status ${hostile}${marker}`)}`,
            );
            // $orderBy names no field: refused before any SQL
            expect(res.status).toBe(400);
            const statements = [...t.log];
            for (const e of statements) expect(e.query.sql).not.toContain(marker);
            const res2 = await ask(t, path, `${encodeURIComponent(param)}=${encodeURIComponent(sent)}`);
            if (res2.status !== 200) return;
            const sql = t.log.map((e) => e.query.sql).join('\n');
            expect(sql).not.toContain(marker);
            const params = t.log.flatMap((e) => e.query.parameters).filter((p): p is string => typeof p === 'string');
            expect(
              params.some((p) => p.includes(marker)),
              'the value was sent as a parameter',
            ).toBe(true);
            reached++;
          },
        ),
        { numRuns: Math.ceil(RUNS / 2) },
      );
      expect(reached).toBeGreaterThan(0);
    }, 120_000);

    it('every hostile piece, raw and encoded, as the value of every kind of parameter', async () => {
      const names = [
        'status',
        'status:like',
        'status:ilike',
        'priority',
        'priority:null',
        'created:gt',
        'id:ne',
        '$orderBy',
        '$deleted',
        '$limit',
        '$page',
        '$cursor',
      ];
      for (const name of names)
        for (const h of HOSTILE) {
          await ask(t, `${M}/work_orders`, `${name}=${h}`);
          await ask(t, `${M}/work_orders/1/notes`, `${encodeURIComponent(name)}=${encodeURIComponent(h)}`);
          await ask(t, `${M}/work_orders`, `${encodeURIComponent(h)}=1`);
          await ask(t, `${M}/work_orders`, `status:${encodeURIComponent(h)}=1`);
        }
    }, 120_000);

    describe('large and many', () => {
      const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('&');
      const cases: [string, () => string, number][] = [
        ['5,000 garbage parameters', () => many(5000, (i) => `x${i}=${i}`), 400],
        ['5,000 empty parameters', () => many(5000, () => '&'), 200],
        ['20,000 $ parameters', () => many(20000, (i) => `$p${i}=1`), 400],
        ['3,000 ids (IN)', () => many(3000, (i) => `id=${i}`), 200],
        ['3,000 ne values (NOT IN)', () => many(3000, (i) => `priority:ne=${i}`), 200],
        ['3,000 like patterns (any of)', () => many(3000, (i) => `status:like=%25${i}`), 200],
        ['3,000 ilike patterns (any of)', () => many(3000, (i) => `status:ilike=${i}%25`), 200],
        ['12,000 distinct ids: over the limit', () => many(12000, (i) => `id=${i}`), 400],
        ['the same id 50,000 times', () => many(50000, () => 'id=1'), 200],
        ['a 1 MB string value', () => `status=${'a'.repeat(1 << 20)}`, 200],
        ['a 1 MB ne value', () => `status:ne=${'é'.repeat(1 << 19)}`, 200],
        ['a 1 MB like pattern', () => `status:like=${'%25a'.repeat(1 << 18)}`, 400],
        ['a 4,096-character like pattern of wildcards', () => `status:like=${encodeURIComponent('%_*?['.repeat(820).slice(0, 4096))}`, 200],
        [
          'a 4,096-character like pattern, each character escaped for GLOB',
          () => `status:like=${encodeURIComponent('['.repeat(4096))}`,
          200,
        ],
        ['a 4,096-character ilike pattern of 4-byte characters', () => `status:ilike=${encodeURIComponent('😀'.repeat(2048))}`, 200],
        ['1,000 repeated gt', () => many(1000, (i) => `priority:gt=${i}`), 400],
        ['a 100,000-colon name', () => `status${':'.repeat(100000)}=1`, 400],
        ['a 100 kB $orderBy', () => `$orderBy=${'status '.repeat(15000)}`, 400],
      ];
      it.each(cases)(
        '%s',
        async (_t, build, status) => {
          const res = await ask(t, `${M}/work_orders`, build());
          expect(res.status).toBe(status);
        },
        60_000,
      );
    });
  });
}
