import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { Hono } from 'hono';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boolean,
  createEngine,
  defineResource,
  EngineError,
  string,
  tenantDb,
  type Action,
  type DbCaller,
  type DbEngine,
  type TenantDb,
} from '../../engine/index.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../support/pg.ts';

/** An embedder's own collection, defined inline. */
const tasks = defineResource({
  name: 'tasks',
  fields: {
    title: string({ required: true, filterable: true, maxLength: 200 }),
    done: boolean({ default: false, filterable: true }),
  },
});

const BASE = '/api/records';
const TASKS = `${BASE}/maintenance/tasks`;

/** Opens a database the way a host would: its own driver, its own Kysely, no engine helpers. */
interface HostDatabases {
  open(): Promise<Kysely<any>>;
  done(): Promise<void>;
}

async function hostDatabases(name: 'sqlite' | 'postgres'): Promise<HostDatabases> {
  if (name === 'sqlite') {
    return {
      open: async () => new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) }),
      done: async () => {},
    };
  }
  const opened: { db: Kysely<any>; drop: () => Promise<void> }[] = [];
  return {
    // A database of its own each time, on a plain pool with pg's default type parsers:
    // the engine must cope with what the host has.
    async open() {
      const fresh = await freshPostgresDatabase();
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 3) }) });
      opened.push({ db, drop: fresh.drop });
      return db;
    },
    async done() {
      for (const o of opened) {
        await o.db.destroy().catch(() => {});
        await o.drop();
      }
    },
  };
}

/** A host app with routes of its own; the collections are mounted beside them. */
function hostApp(mount: Hono): Hono {
  const host = new Hono();
  host.get('/', (c) => c.text('host home'));
  host.get('/api/hello', (c) => c.json({ hello: 'from the host' }));
  host.route('/', mount);
  return host;
}

const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** The host's own sessions: a cookie names a user of one of the host's tenants, with permissions. */
const SESSIONS: Record<string, { user: string; tenant: 'a' | 'b'; may: Partial<Record<Action, true>> }> = {
  ann: { user: 'ann', tenant: 'a', may: { read: true, create: true, update: true, delete: true } },
  bob: { user: 'bob', tenant: 'a', may: { read: true } },
  cid: { user: 'cid', tenant: 'b', may: { read: true, create: true } },
};

function sessionOf(req: Request) {
  const sid = /(?:^|;\s*)sid=([^;]*)/.exec(req.headers.get('cookie') ?? '')?.[1];
  const session = sid === undefined ? undefined : SESSIONS[sid];
  if (!session) throw new EngineError('unauthorized', 'Sign in to the host first.', [], { 'www-authenticate': 'Cookie' });
  return session;
}

const DATABASES = TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(DATABASES)('embedding on %s', (name) => {
  let dbs: HostDatabases;
  beforeAll(async () => {
    dbs = await hostDatabases(name);
  });
  afterAll(async () => dbs?.done());

  describe('auth off', () => {
    let db: Kysely<any>;
    let engine: DbEngine;
    let host: Hono;
    beforeAll(async () => {
      db = await dbs.open();
      engine = createEngine({ db, resources: [tasks], basePath: BASE, cursorTtlS: 60 });
      await engine.migrate();
      host = hostApp(engine.app);
    });

    it('serves the host routes and the collections side by side', async () => {
      expect(await (await host.request('/api/hello')).json()).toEqual({ hello: 'from the host' });
      const created = await host.request(TASKS, json('POST', { title: 'oil the hinge' }));
      expect(created.status).toBe(201);
      const task = await created.json();
      expect(task).toMatchObject({ title: 'oil the hinge', done: false, deleted: false });
      expect(created.headers.get('location')).toBe(`${TASKS}/${task.id}`);
      expect(await (await host.request(`${TASKS}/${task.id}`)).json()).toEqual(task);
    });

    it('does not serve the default base path', async () => {
      expect((await host.request('/v4_server/external/v1/maintenance/tasks')).status).toBe(404);
    });

    it('lists with a filter and pages with links under the custom base path', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await host.request(TASKS, json('POST', { title: `done ${i}`, done: true }))).status).toBe(201);
      }
      const first = await host.request(`${TASKS}?done=true&$limit=2&$orderBy=id`);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-total')).toBe('5');
      const cursor = first.headers.get('x-cursor');
      expect(cursor).toMatch(/\S/);
      expect(first.headers.get('link')).toContain(`<${TASKS}?$cursor=${cursor}&$page=2>; rel="next"`);
      const page3 = await host.request(`${TASKS}?$cursor=${cursor}&$page=3`);
      expect((await page3.json()).map((t: { title: string }) => t.title)).toEqual(['done 4']);
    });

    it('soft-deletes', async () => {
      const task = await (await host.request(TASKS, json('POST', { title: 'to drop' }))).json();
      expect((await host.request(`${TASKS}/${task.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await host.request(`${TASKS}/${task.id}`)).status).toBe(404);
      expect((await (await host.request(`${TASKS}/${task.id}?$deleted=true`)).json()).deleted).toBe(true);
    });

    it('answers through its own fetch too', async () => {
      const res = await engine.fetch(new Request(`http://host.example${TASKS}?title=oil%20the%20hinge`));
      expect(res.status).toBe(200);
      expect((await res.json()).map((t: { title: string }) => t.title)).toEqual(['oil the hinge']);
    });
  });

  describe('auth from the host session', () => {
    let host: Hono;
    const before: string[] = [];
    beforeAll(async () => {
      const db = await dbs.open();
      const engine = createEngine({
        db,
        resources: [tasks],
        basePath: BASE,
        async resolveCaller(req): Promise<DbCaller> {
          const session = sessionOf(req);
          return { user: session.user, can: (_collection, action) => session.may[action] === true };
        },
        async beforeRequest(req, caller) {
          before.push(`${caller.user} ${req.method}`);
          if (req.headers.get('x-flood') === '1') throw new EngineError('rate-limited', 'Slow down.', [], { 'retry-after': '7' });
        },
      });
      await engine.migrate();
      host = hostApp(engine.app);
    });

    it('refuses a request without a session with the resolver’s 401, before any other check', async () => {
      const res = await host.request(`${BASE}/maintenance/no_such_collection`);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.headers.get('www-authenticate')).toBe('Cookie');
      expect((await host.request('/api/hello')).status).toBe(200);
    });

    it('gives 403 to a user without the permission and serves one with it', async () => {
      const bobWrites = await host.request(TASKS, json('POST', { title: 'x' }, { cookie: 'sid=bob' }));
      expect(bobWrites.status).toBe(403);
      const annWrites = await host.request(TASKS, json('POST', { title: 'by ann' }, { cookie: 'sid=ann' }));
      expect(annWrites.status).toBe(201);
      const bobReads = await host.request(TASKS, { headers: { cookie: 'sid=bob' } });
      expect((await bobReads.json()).map((t: { title: string }) => t.title)).toEqual(['by ann']);
    });

    it('binds cursors to the resolved user', async () => {
      const annList = await host.request(`${TASKS}?$limit=1`, { headers: { cookie: 'sid=ann' } });
      const cursor = annList.headers.get('x-cursor');
      expect((await host.request(`${TASKS}?$cursor=${cursor}&$page=1`, { headers: { cookie: 'sid=ann' } })).status).toBe(200);
      expect((await host.request(`${TASKS}?$cursor=${cursor}&$page=1`, { headers: { cookie: 'sid=bob' } })).status).toBe(410);
    });

    it('runs the before-request hook with the resolved caller, and its refusal is the answer', async () => {
      before.length = 0;
      const res = await host.request(TASKS, { headers: { cookie: 'sid=ann', 'x-flood': '1' } });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(before).toEqual(['ann GET']);
      await host.request('/api/hello', { headers: { cookie: 'sid=ann' } });
      await host.request(TASKS, { headers: { 'x-flood': '1' } });
      expect(before).toEqual(['ann GET']);
    });
  });

  describe('tenants resolved from the host session', () => {
    let host: Hono;
    beforeAll(async () => {
      const tenants: Record<'a' | 'b', TenantDb> =
        name === 'postgres'
          ? await (async () => {
              const db = await dbs.open();
              for (const s of ['tenant_a', 'tenant_b']) await db.schema.createSchema(s).execute();
              return { a: tenantDb(db, { key: 'a', schema: 'tenant_a' }), b: tenantDb(db, { key: 'b', schema: 'tenant_b' }) };
            })()
          : { a: tenantDb(await dbs.open(), { key: 'a' }), b: tenantDb(await dbs.open(), { key: 'b' }) };
      const engine = createEngine({
        resources: [tasks],
        basePath: BASE,
        async resolveCaller(req) {
          const session = sessionOf(req);
          return { tenant: tenants[session.tenant], user: session.user, can: (_c, action) => session.may[action] === true };
        },
      });
      await engine.migrate(tenants.a);
      await engine.migrate(tenants.b);
      host = hostApp(engine.app);
    });

    it('keeps each tenant’s records in its own database', async () => {
      const a = await host.request(TASKS, json('POST', { title: 'in a' }, { cookie: 'sid=ann' }));
      const b = await host.request(TASKS, json('POST', { title: 'in b' }, { cookie: 'sid=cid' }));
      expect([a.status, b.status]).toEqual([201, 201]);
      const titles = async (sid: string) =>
        (await (await host.request(TASKS, { headers: { cookie: `sid=${sid}` } })).json()).map((t: { title: string }) => t.title);
      expect(await titles('bob')).toEqual(['in a']);
      expect(await titles('cid')).toEqual(['in b']);
      // Both databases numbered from 1: the same path reads a different record per session.
      const id = (await a.json()).id;
      expect((await b.json()).id).toBe(id);
      const read = async (sid: string) =>
        (await (await host.request(`${TASKS}/${id}`, { headers: { cookie: `sid=${sid}` } })).json()).title;
      expect([await read('ann'), await read('cid')]).toEqual(['in a', 'in b']);
    });
  });

  it.runIf(name === 'postgres')('keeps its tables in the schema it is given', async () => {
    const db = await dbs.open();
    const engine = createEngine({ db, resources: [tasks], basePath: BASE, schema: 'records' });
    await engine.migrate();
    expect((await engine.fetch(new Request(`http://h${TASKS}`, json('POST', { title: 'in records' })))).status).toBe(201);
    const where = await sql<{
      table_schema: string;
    }>`select table_schema from information_schema.tables where table_name = 'tasks'`.execute(db);
    expect(where.rows).toEqual([{ table_schema: 'records' }]);
  });

  it("puts responseHeaders on every answer: success, the resolver's refusals, engine errors, unexpected errors", async () => {
    const db = await dbs.open();
    const engine = createEngine({
      db,
      resources: [tasks],
      basePath: BASE,
      responseHeaders: (req) => ({ 'x-trace': req.headers.get('x-t') ?? 'none' }),
      async resolveCaller(req) {
        if (req.headers.get('x-who') === 'nobody') throw new EngineError('unauthorized', 'Who are you?');
        if (req.headers.get('x-who') === 'crash') throw new Error('a bug in the host');
        return { can: () => true };
      },
    });
    await engine.migrate();
    const ask = (path: string, t: string, who = 'me') =>
      engine.fetch(new Request(`http://h${path}`, { headers: { 'x-who': who, 'x-t': t } }));
    const answers = [
      await ask(TASKS, 'a'),
      await ask(`${TASKS}/12345`, 'b'),
      await ask(`${TASKS}?nope=1`, 'c'),
      await ask(TASKS, 'd', 'nobody'),
      await ask(TASKS, 'e', 'crash'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 400, 401, 500]);
    expect(answers.map((r) => r.headers.get('x-trace'))).toEqual(['a', 'b', 'c', 'd', 'e']);
    await engine.close();
  });

  describe('close', () => {
    it('answers 503 once closed, then destroys the handed-over database', async () => {
      const db = await dbs.open();
      const engine = createEngine({ db, resources: [tasks], basePath: BASE });
      await engine.migrate();
      expect((await engine.fetch(new Request(`http://h${TASKS}`))).status).toBe(200);
      await engine.close();
      expect((await engine.fetch(new Request(`http://h${TASKS}`))).status).toBe(503);
      await expect(sql`select 1`.execute(db)).rejects.toThrow();
    });

    it('lets a request in flight finish before it destroys the database', async () => {
      const db = await dbs.open();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const engine = createEngine({
        db,
        resources: [tasks],
        basePath: BASE,
        async resolveCaller() {
          await gate;
          return { can: () => true };
        },
      });
      await engine.migrate();
      const inFlight = engine.fetch(new Request(`http://h${TASKS}`, json('POST', { title: 'in flight' })));
      let closed = false;
      const closing = engine.close().then(() => (closed = true));
      await new Promise((r) => setImmediate(r));
      expect(closed).toBe(false);
      expect((await engine.fetch(new Request(`http://h${TASKS}`))).status).toBe(503);
      release();
      expect((await inFlight).status).toBe(201);
      await closing;
      await expect(sql`select 1`.execute(db)).rejects.toThrow();
    });

    it('leaves the database open with closeDb: false', async () => {
      const db = await dbs.open();
      const engine = createEngine({ db, resources: [tasks], basePath: BASE, closeDb: false });
      await engine.migrate();
      await engine.close();
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    });
  });
});

describe('the embedding example on Node (examples/embed/node.ts, over a socket)', () => {
  it('starts as the README says and serves the host routes and the collections', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'examples/embed/node.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (d) => {
          out += d;
          const m = /node: (http:\/\/\S+)/.exec(out);
          if (m) done(m[1]!);
        });
        child.once('exit', (code) => fail(new Error(`the example exited (${code}): ${err}`)));
      });
      expect(url).toMatch(/\/api\/records\/maintenance\/tasks$/);
      const origin = new URL(url).origin;
      expect(await (await fetch(`${origin}/api/whoami`)).json()).toEqual({ host: 'example', runtime: 'node' });
      expect((await fetch(url)).status).toBe(401);
      const created = await fetch(url, json('POST', { title: 'over a socket' }, { cookie: 'sid=demo-admin' }));
      expect(created.status).toBe(201);
      const listed = await fetch(`${url}?title=over%20a%20socket`, { headers: { cookie: 'sid=demo-viewer' } });
      expect((await listed.json()).map((t: { title: string }) => t.title)).toEqual(['over a socket']);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  }, 60_000);
});
