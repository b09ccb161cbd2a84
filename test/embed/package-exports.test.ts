import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What a host installing the package gets: `npm pack` (whose prepack builds dist/), the tarball
 * installed by npm into an empty project, offline. The project's other dependencies are linked
 * to this checkout's node_modules (`file:` specs npm turns into links), which an offline install
 * cannot fetch; the package itself is unpacked from the tarball as any install would. Then a
 * consumer reaches each entry point by name: type-checked by this checkout's tsc against the
 * shipped .d.ts, run by plain Node (no TypeScript loader), and run by Bun.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const BUN = join(ROOT, 'node_modules/.bin/bun');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** The consumer's own packages besides the ones the package depends on. */
const HOST_PACKAGES = ['@types/node', '@types/better-sqlite3', 'kysely-bun-sqlite'];
/** No loader, no source condition, no inherited npm settings: a plain host's environment. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('npm_')));

const CHECK_TS = `
import { createEngine, type DbEngine, type RecordOf } from 'maintenance-records';
import * as engineEntry from 'maintenance-records/engine';
import { defineResource, string, boolean } from 'maintenance-records/define';
import { GroupCommitKysely, GroupCommitSqliteDialect } from 'maintenance-records/sqlite';
import { swaggerUiAssets } from 'maintenance-records/docs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true }), done: boolean({ default: false }) } });
type Task = RecordOf<typeof tasks>;
export const title: Task['title'] = 'a';
// @ts-expect-error: a task's title is a string, so the types are real, not any
export const wrong: Task['title'] = 1;
const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
export const engine: DbEngine = createEngine({ db, resources: [tasks], basePath: '/api', apiDocs: { title: 'Tasks', assets: swaggerUiAssets() } });
export const document: Record<string, unknown> = engine.openApi();
// @ts-expect-error: migrate takes a tenant database, not a name
void engine.migrate('main');
// @ts-expect-error: the docs assets are a function of a file name
void createEngine({ db, resources: [tasks], apiDocs: { assets: 'swagger-ui-dist' } });
export const same: typeof createEngine = engineEntry.createEngine;
const grouped = new Kysely<any>({ dialect: new GroupCommitSqliteDialect(new Database(':memory:')) });
export const groupedEngine: DbEngine = createEngine({ db: grouped, resources: [tasks] });
const direct: Kysely<any> = new GroupCommitKysely(new GroupCommitSqliteDialect(new Database(':memory:')));
export const directEngine: DbEngine = createEngine({ db: direct, resources: [tasks] });
// @ts-expect-error: the group-commit dialect wraps a better-sqlite3 database, not a file name
void new GroupCommitSqliteDialect('tasks.sqlite');
`;

const RUN_MJS = `
import { serve } from '@hono/node-server';
import { createEngine } from 'maintenance-records';
import * as engineEntry from 'maintenance-records/engine';
import { defineResource, string } from 'maintenance-records/define';
import { GroupCommitKysely, GroupCommitSqliteDialect } from 'maintenance-records/sqlite';
import { swaggerUiAssets } from 'maintenance-records/docs';
import Database from 'better-sqlite3';

const entries = {};
for (const name of ${JSON.stringify(Object.keys(manifest.exports).filter((e) => e !== './package.json'))}) {
  const specifier = 'maintenance-records' + name.slice(1);
  entries[name] = Object.keys(await import(specifier)).sort();
}
const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true, filterable: true }) } });
const dialect = new GroupCommitSqliteDialect(new Database(':memory:'));
const engine = createEngine({ db: new GroupCommitKysely(dialect), resources: [tasks], basePath: '/api', apiDocs: { assets: swaggerUiAssets() } });
await engine.migrate();
const server = await new Promise((ready) => { const s = serve({ fetch: engine.fetch, port: 0, hostname: '127.0.0.1' }, () => ready(s)); });
const base = 'http://127.0.0.1:' + server.address().port + '/api';
const before = dialect.stats().writes;
const posts = await Promise.all(['built', 'built', 'other'].map((title) => fetch(base + '/maintenance/tasks', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }),
})));
const writes = dialect.stats().writes - before;
const list = await fetch(base + '/maintenance/tasks?title=built');
const openapi = await fetch(base + '/openapi.json');
const docs = await fetch(base + '/docs');
const bundle = await fetch(base + '/docs/swagger-ui-bundle.js');
let deep = 'exported';
try { await import('maintenance-records/dist/engine/registry.js'); } catch (e) { deep = e.code; }
console.log(JSON.stringify({
  entries,
  posts: posts.map((p) => p.status),
  writes,
  titles: (await list.json()).map((t) => t.title),
  openapi: Object.keys((await openapi.json()).paths),
  sameDocument: JSON.stringify(engine.openApi()) === JSON.stringify(await (await fetch(base + '/openapi.json')).json()),
  docs: [docs.status, (await docs.text()).includes('/api/docs/swagger-ui-bundle.js'), bundle.status, (await bundle.text()).length > 100000],
  sameModule: engineEntry.createEngine === createEngine,
  deep,
}));
server.close();
await engine.close();
`;

const BUN_TS = `
import { Database } from 'bun:sqlite';
import { Kysely } from 'kysely';
import { BunSqliteDialect } from 'kysely-bun-sqlite';
import { createEngine } from 'maintenance-records';
import { defineResource, string } from 'maintenance-records/define';

const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true, filterable: true }) } });
const engine = createEngine({ db: new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(':memory:') }) }), resources: [tasks], basePath: '/api' });
await engine.migrate();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: engine.fetch });
const url = 'http://127.0.0.1:' + server.port + '/api/maintenance/tasks';
const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'on bun' }) });
const list = await fetch(url + '?title=on+bun');
console.log(JSON.stringify({
  resolved: import.meta.resolve('maintenance-records'),
  post: post.status,
  titles: (await list.json()).map((t: { title: string }) => t.title),
}));
server.stop(true);
await engine.close();
`;

describe('the packed package, installed into an empty project', () => {
  let dir: string;
  let host: string;
  let packed: { filename: string; files: { path: string }[] };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrs-pkg-'));
    host = join(dir, 'host');
    mkdirSync(host);
    // prepack runs `npm run build`: tsc -p tsconfig.build.json into dist/.
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env, maxBuffer: 16 << 20 });
    packed = JSON.parse(stdout)[0];
    const linked = [...Object.keys(manifest.dependencies), ...HOST_PACKAGES];
    const dependencies = Object.fromEntries(linked.map((d) => [d, `file:${join(ROOT, 'node_modules', d)}`]));
    writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module', dependencies }));
    // --ignore-scripts: the linked packages are this checkout's, built already; nothing of theirs may run again.
    await run(
      'npm',
      ['install', '--offline', '--install-links=false', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, packed.filename)],
      { cwd: host, env },
    );
    writeFileSync(join(host, 'check.ts'), CHECK_TS);
    writeFileSync(join(host, 'run.mjs'), RUN_MJS);
    writeFileSync(join(host, 'bun-serve.ts'), BUN_TS);
    writeFileSync(
      join(host, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
  }, 240_000);
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('ships the build, the sources its export conditions name, and no tests', () => {
    const files = new Set(packed.files.map((f) => f.path));
    const targets = Object.values(manifest.exports as Record<string, string | Record<string, string>>).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e),
    );
    for (const target of [...targets, ...Object.values(manifest.bin as Record<string, string>)])
      expect(files.has(target.replace(/^\.\//, '')), target).toBe(true);
    expect(files.has('README.md')).toBe(true);
    expect([...files].filter((f) => /(^|\/)test(-bun)?\/|\.test\.ts$/.test(f))).toEqual([]);
    expect([...files].filter((f) => /^(bench|examples)\//.test(f))).toEqual([]);
  });

  it('type-checks a consumer importing the entry points by name, with real types', async () => {
    const checked = await run(process.execPath, [TSC, '-p', join(host, 'tsconfig.json')], { cwd: host, env }).catch(
      (e: { stdout: string }) => ({
        stdout: e.stdout,
        failed: true,
      }),
    );
    expect(checked.stdout).toBe('');
    expect('failed' in checked).toBe(false);
  }, 120_000);

  it('imports every entry point and serves requests on plain Node, and nothing outside the exports map is reachable', async () => {
    const { stdout } = await run(process.execPath, [join(host, 'run.mjs')], { cwd: host, env });
    const out = JSON.parse(stdout);
    expect(out.entries['.']).toEqual(expect.arrayContaining(['createEngine', 'defineResource', 'EngineError', 'tenantDb', 'string']));
    expect(out.entries['./engine']).toEqual(out.entries['.']);
    expect(out.entries['./define']).toEqual(expect.arrayContaining(['defineResource', 'integer', 'string']));
    expect(out.entries['./sqlite']).toEqual(expect.arrayContaining(['GroupCommitKysely', 'GroupCommitSqliteDialect']));
    expect(out.entries['./docs']).toEqual(['swaggerUiAssets']);
    // Each create is one write through the group-commit dialect (its INSERT and its event in one transaction, see create.ts).
    expect(out).toMatchObject({
      posts: [201, 201, 201],
      writes: 3,
      titles: ['built', 'built'],
      sameModule: true,
      deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
    // The engine serves its change feed (SPEC 9), batches (SPEC 10) and /bulk reads (SPEC 14) too.
    expect(out.openapi).toEqual([
      '/api/maintenance/tasks',
      '/api/maintenance/tasks/{id}',
      '/api/bulk/maintenance/tasks',
      '/api/bulk/maintenance/tasks/{id}',
      '/api/events',
      '/api/batch',
    ]);
    expect(out.sameDocument).toBe(true);
    expect(out.docs).toEqual([200, true, 200, true]);
  }, 60_000);

  it('serves a request on Bun, from the installed package', async () => {
    const { stdout } = await run(BUN, ['run', join(host, 'bun-serve.ts')], { cwd: host, env });
    const out = JSON.parse(stdout);
    expect(out.resolved).toContain(`${host}/node_modules/maintenance-records/`);
    expect(out).toMatchObject({ post: 201, titles: ['on bun'] });
  }, 60_000);

  it('runs its mrs command', async () => {
    const { stdout } = await run(join(host, 'node_modules/.bin/mrs'), ['--help'], { cwd: host, env });
    expect(stdout).toMatch(/\bserve\b/);
  }, 60_000);
});
