import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isDefinitionFile } from '../../server/definition-files.js';
import { serveChild, stopChild } from '../support/serve-child.ts';

const ROOT = join(import.meta.dirname, '../..');

/**
 * A copy of the project's sources whose node_modules folder is its own (each package a link
 * to the real one), so its compiled build lands in its own node_modules/.cache.
 */
function projectCopy(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mrs-compiled-'));
  for (const d of ['bin', 'engine', 'adapters', 'server', 'resources']) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, f), join(dir, f));
  mkdirSync(join(dir, 'node_modules'));
  for (const p of readdirSync(join(ROOT, 'node_modules')))
    if (p !== '.cache') symlinkSync(join(ROOT, 'node_modules', p), join(dir, 'node_modules', p));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const assets = (fields: string) => `import { defineResource, string } from '../engine/define.ts';

export default defineResource({ name: 'assets', fields: { ${fields} } });
`;

/** `mrs serve` of the copy on a free port; resolves with its origin once it listens. */
function serve(dir: string, dataDir: string) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  delete env.DATABASE_URL;
  return serveChild(env, join(dir, 'bin', 'mrs.js'));
}

const stop = stopChild;

/** The command lines of every process below `pid`, from the parent ids in /proc. */
function descendants(pid: number): string[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const ppid = Number(
        readFileSync(`/proc/${name}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ')[1],
      );
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const below = (p: number): number[] => (parents.get(p) ?? []).flatMap((c) => [c, ...below(c)]);
  return below(pid).map((c) => {
    try {
      return readFileSync(`/proc/${c}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      return '';
    }
  });
}

const assetFields = async (origin: string) => {
  const doc = (await (await fetch(`${origin}/v4_server/external/v1/openapi.json`)).json()) as {
    components: { schemas: Record<string, { properties?: object }> };
  };
  const schema = Object.entries(doc.components.schemas).find(([name]) => /^asset/i.test(name))?.[1];
  return schema?.properties ? Object.keys(schema.properties).sort() : undefined;
};

describe('bin/mrs.js runs the sources compiled to JavaScript', () => {
  const copy = projectCopy();
  const dataDir = mkdtempSync(join(tmpdir(), 'mrs-compiled-data-'));
  afterAll(() => {
    copy.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const manifest = () => JSON.parse(readFileSync(join(copy.dir, 'node_modules', '.cache', 'mrs', 'manifest.json'), 'utf8'));

  it('serves a definition file dropped into resources/, and its new version after a restart', async () => {
    writeFileSync(join(copy.dir, 'resources', 'assets.ts'), assets(`name: string({ required: true })`));
    let server = await serve(copy.dir, dataDir);
    try {
      expect(await assetFields(server.origin)).toEqual(expect.arrayContaining(['id', 'name']));
      expect(await assetFields(server.origin)).not.toContain('serial');
    } finally {
      await stop(server.child);
    }
    const first = manifest();
    expect(first.resources).toContain('assets.ts');
    expect(existsSync(join(copy.dir, 'node_modules', '.cache', 'mrs', first.dir, 'resources', 'assets.mjs'))).toBe(true);

    writeFileSync(join(copy.dir, 'resources', 'assets.ts'), assets(`name: string({ required: true }), serial: string({ nullable: true })`));
    server = await serve(copy.dir, dataDir);
    try {
      expect(await assetFields(server.origin)).toEqual(expect.arrayContaining(['id', 'name', 'serial']));
    } finally {
      await stop(server.child);
    }
    expect(manifest().dir).not.toBe(first.dir);
  });

  it('leaves no esbuild process running beside the server after compiling', async () => {
    const before = existsSync(join(copy.dir, 'node_modules', '.cache', 'mrs', 'manifest.json')) ? manifest() : undefined;
    writeFileSync(join(copy.dir, 'resources', 'assets.ts'), assets(`name: string({ required: true }), tag: string({ nullable: true })`));
    const server = await serve(copy.dir, dataDir);
    try {
      expect(manifest().dir).not.toBe(before?.dir); // this start compiled
      expect(descendants(server.child.pid!).filter((cmd) => /esbuild/.test(cmd))).toEqual([]);
    } finally {
      await stop(server.child);
    }
  });

  it('compiles again only when a source changed', async () => {
    const before = manifest();
    const help = spawn(process.execPath, [join(copy.dir, 'bin', 'mrs.js'), '--help'], { stdio: 'ignore' });
    expect(await new Promise((r) => help.once('exit', r))).toBe(0);
    expect(manifest()).toEqual(before);
  });

  it('compiles again when tsconfig.json changed (esbuild reads it)', async () => {
    const before = manifest();
    const tsconfig = join(copy.dir, 'tsconfig.json');
    writeFileSync(tsconfig, readFileSync(tsconfig, 'utf8') + '\n');
    const help = spawn(process.execPath, [join(copy.dir, 'bin', 'mrs.js'), '--help'], { stdio: 'ignore' });
    expect(await new Promise((r) => help.once('exit', r))).toBe(0);
    expect(manifest().dir).not.toBe(before.dir);
    expect(manifest().inputs).toEqual(expect.arrayContaining(['tsconfig.json', 'package.json', 'bin/compile.js']));
  });
});

describe('bin/mrs.js where its cache cannot be written', () => {
  const copy = projectCopy();
  afterAll(() => copy.remove());

  it('runs the sources through tsx instead', async () => {
    writeFileSync(join(copy.dir, 'node_modules', '.cache'), 'a file where the cache folder would go');
    const help = spawn(process.execPath, [join(copy.dir, 'bin', 'mrs.js'), '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    help.stdout!.on('data', (d) => (out += d));
    expect(await new Promise((r) => help.once('exit', r))).toBe(0);
    expect(out).toContain('usage: mrs <command>');
  });
});

describe('which files of resources/ are definitions', () => {
  it.each([
    ['work-orders.ts', true],
    ['assets.js', true],
    ['assets.mjs', true],
    ['types.d.ts', false],
    ['work-orders.test.ts', false],
    ['README.md', false],
    ['assets.json', false],
  ])('%s: %s', (name, expected) => {
    expect(isDefinitionFile(name)).toBe(expected);
  });
});
