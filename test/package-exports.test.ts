import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What a host installing the package gets: the build (tsconfig.build.json) into a package of
 * its own that holds only dist/ and package.json, and a consumer reaching it by name through
 * the exports map, type-checked by tsc and run by plain Node (no TypeScript loader).
 */
const ROOT = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

const CHECK_TS = `
import { createEngine, type DbEngine, type RecordOf } from 'maintenance-records';
import * as engineEntry from 'maintenance-records/engine';
import { defineResource, string, boolean } from 'maintenance-records/define';
import { GroupCommitKysely, GroupCommitSqliteDialect } from 'maintenance-records/sqlite';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true }), done: boolean({ default: false }) } });
type Task = RecordOf<typeof tasks>;
export const title: Task['title'] = 'a';
// @ts-expect-error: a task's title is a string, so the types are real, not any
export const wrong: Task['title'] = 1;
const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
export const engine: DbEngine = createEngine({ db, resources: [tasks], basePath: '/api' });
// @ts-expect-error: migrate takes a tenant database, not a name
void engine.migrate('main');
export const same: typeof createEngine = engineEntry.createEngine;
const grouped = new Kysely<any>({ dialect: new GroupCommitSqliteDialect(new Database(':memory:')) });
export const groupedEngine: DbEngine = createEngine({ db: grouped, resources: [tasks] });
const direct: Kysely<any> = new GroupCommitKysely(new GroupCommitSqliteDialect(new Database(':memory:')));
export const directEngine: DbEngine = createEngine({ db: direct, resources: [tasks] });
// @ts-expect-error: the group-commit dialect wraps a better-sqlite3 database, not a file name
void new GroupCommitSqliteDialect('tasks.sqlite');
`;

const RUN_MJS = `
import { createEngine } from 'maintenance-records';
import * as engineEntry from 'maintenance-records/engine';
import { defineResource, string } from 'maintenance-records/define';
import { GroupCommitKysely, GroupCommitSqliteDialect } from 'maintenance-records/sqlite';
import Database from 'better-sqlite3';

const tasks = defineResource({ name: 'tasks', fields: { title: string({ required: true, filterable: true }) } });
const dialect = new GroupCommitSqliteDialect(new Database(':memory:'));
const engine = createEngine({ db: new GroupCommitKysely(dialect), resources: [tasks], basePath: '/api' });
await engine.migrate();
const before = dialect.stats().writes;
const posts = await Promise.all(['built', 'built', 'other'].map((title) => engine.fetch(new Request('http://h/api/maintenance/tasks', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }),
}))));
const writes = dialect.stats().writes - before;
const list = await engine.fetch(new Request('http://h/api/maintenance/tasks?title=built'));
let deep = 'exported';
try { await import('maintenance-records/dist/engine/registry.js'); } catch (e) { deep = e.code; }
console.log(JSON.stringify({
  posts: posts.map((p) => p.status),
  writes,
  titles: (await list.json()).map((t) => t.title),
  sameModule: engineEntry.createEngine === createEngine,
  deep,
}));
await engine.close();
`;

describe('the built package', () => {
  let dir: string;
  let pkg: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrs-pkg-'));
    pkg = join(dir, 'maintenance-records');
    await run(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { cwd: ROOT });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: manifest.name, type: 'module', exports: manifest.exports }));
    // The package's own dependencies, as an install would give it.
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    mkdirSync(join(pkg, 'consumer'));
    writeFileSync(join(pkg, 'consumer/check.ts'), CHECK_TS);
    writeFileSync(join(pkg, 'consumer/run.mjs'), RUN_MJS);
    writeFileSync(
      join(pkg, 'consumer/tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
        files: ['check.ts'],
      }),
    );
  }, 180_000);
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('gives each entry point a JavaScript file and its type declarations', () => {
    for (const entry of ['.', './engine', './define', './sqlite']) {
      const { types, import: js } = manifest.exports[entry];
      expect(() => readFileSync(join(pkg, types)), `${entry} types`).not.toThrow();
      expect(() => readFileSync(join(pkg, js)), `${entry} import`).not.toThrow();
    }
  });

  it('type-checks a consumer importing the entry points by name, with real types', async () => {
    const checked = await run(process.execPath, [TSC, '-p', join(pkg, 'consumer/tsconfig.json')], { cwd: join(pkg, 'consumer') }).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout, failed: true }),
    );
    expect(checked.stdout).toBe('');
    expect('failed' in checked).toBe(false);
  }, 120_000);

  it('runs the built JavaScript on plain Node, and nothing outside the exports map is reachable', async () => {
    const { stdout } = await run(process.execPath, [join(pkg, 'consumer/run.mjs')], { cwd: join(pkg, 'consumer') });
    // Each create is one write through the group-commit dialect (a lone INSERT, see create.ts).
    expect(JSON.parse(stdout)).toEqual({ posts: [201, 201, 201], writes: 3, titles: ['built', 'built'], sameModule: true, deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  }, 60_000);
});
