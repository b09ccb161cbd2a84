/**
 * The engine under Bun (`bun test ./test-bun`, part of `npm test`): Bun's own SQLite through
 * kysely-bun-sqlite, and PostgreSQL through pg when TEST_DATABASE_URL is set (under CI=true
 * it must be). The engine is imported by package name, so Bun's exports condition is used.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { Kysely, PostgresDialect } from 'kysely';
import { BunSqliteDialect } from 'kysely-bun-sqlite';
import { createEngine, EngineError, type DbEngine } from 'maintenance-records';
import { boolean, defineResource, integer, string } from 'maintenance-records/define';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../test/support/pg.ts';

if (!TEST_DATABASE_URL) {
  if (process.env.CI === 'true')
    throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL half of the Bun suite may not be skipped');
  console.warn('\n[bun] PostgreSQL half SKIPPED: set TEST_DATABASE_URL=postgres://... to run it too\n');
}

const jobs = defineResource({
  name: 'jobs',
  fields: {
    title: string({ required: true, filterable: true }),
    priority: integer({ nullable: true, filterable: true }),
    urgent: boolean({ default: false, filterable: true }),
  },
});

const BASE = '/embedded';
const JOBS = `${BASE}/maintenance/jobs`;
const ORIGIN = 'http://bun.test';

interface Opened {
  db: Kysely<any>;
  drop(): Promise<void>;
}

const DATABASES: Record<string, () => Promise<Opened>> = {
  'bun:sqlite': async () => ({
    db: new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(':memory:') }) }),
    drop: async () => {},
  }),
  ...(TEST_DATABASE_URL
    ? {
        postgres: async () => {
          const fresh = await freshPostgresDatabase();
          return { db: new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 3) }) }), drop: fresh.drop };
        },
      }
    : {}),
};

const post = (engine: DbEngine, body: unknown) =>
  engine.fetch(new Request(ORIGIN + JOBS, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
const get = (engine: DbEngine, path: string) => engine.fetch(new Request(ORIGIN + path));
const titles = async (res: Response) => ((await res.json()) as { title: string }[]).map((j) => j.title);

it('runs on Bun, with the engine from its sources through the package exports', () => {
  expect(typeof Bun.version).toBe('string');
  expect(import.meta.resolve('maintenance-records')).toEndWith('/engine/index.ts');
  expect(import.meta.resolve('maintenance-records/define')).toEndWith('/engine/define.ts');
});

for (const [name, open] of Object.entries(DATABASES)) {
  describe(`on ${name}`, () => {
    let opened: Opened;
    let engine: DbEngine;
    beforeAll(async () => {
      opened = await open();
      engine = createEngine({ db: opened.db, resources: [jobs], basePath: BASE });
      await engine.migrate();
    }, 60_000);
    afterAll(async () => {
      await engine?.close();
      await opened?.drop();
    }, 60_000);

    it('creates', async () => {
      const res = await post(engine, { title: 'first', priority: 1 });
      expect(res.status).toBe(201);
      const job = (await res.json()) as Record<string, unknown>;
      expect(job).toMatchObject({ title: 'first', priority: 1, urgent: false, deleted: false });
      expect(res.headers.get('location')).toBe(`${JOBS}/${job.id}`);
      expect(await (await get(engine, `${JOBS}/${job.id}`)).json()).toEqual(job);
    });

    it('refuses an invalid record with every problem listed', async () => {
      const res = await post(engine, { priority: 'high', colour: 'red' });
      expect(res.status).toBe(422);
      const fields = ((await res.json()) as { errors: { field: string }[] }).errors.map((e) => e.field).sort();
      expect(fields).toEqual(['colour', 'priority', 'title']);
    });

    it('lists with a filter', async () => {
      for (const [title, priority, urgent] of [
        ['pump', 5, true],
        ['valve', 2, true],
        ['fan', 4, false],
      ] as const) {
        expect((await post(engine, { title, priority, urgent })).status).toBe(201);
      }
      const res = await get(engine, `${JOBS}?urgent=true&priority:gte=3`);
      expect(res.status).toBe(200);
      expect(await titles(res)).toEqual(['pump']);
      expect(res.headers.get('x-total')).toBe('1');
      expect(await titles(await get(engine, `${JOBS}?title:like=%25a%25&$orderBy=title`))).toEqual(['fan', 'valve']);
    });

    it('pages through a cursor with X-Cursor, Link and $page', async () => {
      for (let i = 1; i <= 7; i++) expect((await post(engine, { title: `batch ${i}`, priority: 9 })).status).toBe(201);
      const first = await get(engine, `${JOBS}?priority=9&$limit=3&$orderBy=id`);
      expect(first.headers.get('x-total')).toBe('7');
      const cursor = first.headers.get('x-cursor')!;
      expect(cursor).toMatch(/^\S+$/);
      const page = (n: number) => `<${JOBS}?$cursor=${cursor}&$page=${n}>`;
      expect(first.headers.get('link')).toBe(`${page(1)}; rel="first", ${page(2)}; rel="next", ${page(3)}; rel="last"`);
      expect(await titles(first)).toEqual(['batch 1', 'batch 2', 'batch 3']);
      const second = await get(engine, `${JOBS}?$cursor=${cursor}&$page=2`);
      expect(await titles(second)).toEqual(['batch 4', 'batch 5', 'batch 6']);
      expect(second.headers.get('link')).toContain(`${page(1)}; rel="prev"`);
      expect(await titles(await get(engine, `${JOBS}?$cursor=${cursor}&$page=3`))).toEqual(['batch 7']);
      expect(await titles(await get(engine, `${JOBS}?$cursor=${cursor}&$page=4`))).toEqual([]);
      const fresh = await get(engine, `${JOBS}?priority=9&$limit=3&$orderBy=id&$page=3`);
      expect(await titles(fresh)).toEqual(['batch 7']);
      expect(fresh.headers.get('x-cursor')).not.toBe(cursor);
      expect((await get(engine, `${JOBS}?$cursor=${cursor}&$page=1&priority=8`)).status).toBe(400);
    });

    it('soft-deletes: gone from reads and new lists, marked in an existing cursor', async () => {
      const before = await get(engine, `${JOBS}?priority=9&$limit=10&$orderBy=id`);
      const cursor = before.headers.get('x-cursor')!;
      const victim = ((await before.json()) as { id: number }[])[0]!.id;
      expect((await engine.fetch(new Request(`${ORIGIN}${JOBS}/${victim}`, { method: 'DELETE' }))).status).toBe(204);
      expect((await get(engine, `${JOBS}/${victim}`)).status).toBe(404);
      expect(((await (await get(engine, `${JOBS}/${victim}?$deleted=true`)).json()) as { deleted: boolean }).deleted).toBe(true);
      const after = await get(engine, `${JOBS}?priority=9`);
      expect(after.headers.get('x-total')).toBe('6');
      const snapshot = (await (await get(engine, `${JOBS}?$cursor=${cursor}&$page=1`)).json()) as { id: number; deleted: boolean }[];
      expect(snapshot[0]).toMatchObject({ id: victim, deleted: true });
      expect(snapshot).toHaveLength(7);
    });

    it('answers 404 outside its base path and 405 with Allow', async () => {
      expect((await get(engine, '/v4_server/external/v1/maintenance/jobs')).status).toBe(404);
      const res = await engine.fetch(new Request(ORIGIN + JOBS, { method: 'DELETE' }));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    });
  });
}

describe('custom auth on Bun', () => {
  it('refuses through the host resolver and serves what it allows', async () => {
    const engine = createEngine({
      db: new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(':memory:') }) }),
      resources: [jobs],
      basePath: BASE,
      async resolveCaller(req) {
        const user = req.headers.get('x-user');
        if (!user) throw new EngineError('unauthorized', 'Who are you?');
        return { user, can: (_collection, action) => user === 'boss' || action === 'read' };
      },
    });
    await engine.migrate();
    const as = (user: string | null, method = 'GET', body?: unknown) =>
      engine.fetch(
        new Request(ORIGIN + JOBS, {
          method,
          headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }),
      );
    expect((await as(null)).status).toBe(401);
    expect((await as('temp', 'POST', { title: 'x' })).status).toBe(403);
    expect((await as('boss', 'POST', { title: 'x' })).status).toBe(201);
    expect(await titles(await as('temp'))).toEqual(['x']);
    await engine.close();
    expect((await as('boss')).status).toBe(503);
  });
});

describe('the embedding example (examples/embed) on Bun', () => {
  it('serves the host routes and the collections behind the host session', async () => {
    const { createHostApp, BASE_PATH } = await import('../examples/embed/app.ts');
    const { app, engine } = await createHostApp(new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(':memory:') }) }));
    const tasks = `http://example.test${BASE_PATH}/maintenance/tasks`;
    const send = (sid: string | null, init: RequestInit = {}) =>
      app.fetch(new Request(tasks, { ...init, headers: { 'content-type': 'application/json', ...(sid ? { cookie: `sid=${sid}` } : {}) } }));
    expect(await (await app.fetch(new Request('http://example.test/api/whoami'))).json()).toEqual({ host: 'example', runtime: 'bun' });
    expect((await send(null)).status).toBe(401);
    expect((await send('demo-viewer', { method: 'POST', body: '{"title":"x"}' })).status).toBe(403);
    expect((await send('demo-admin', { method: 'POST', body: '{"title":"x"}' })).status).toBe(201);
    expect(await titles(await send('demo-viewer'))).toEqual(['x']);
    await engine.close();
  });
});
