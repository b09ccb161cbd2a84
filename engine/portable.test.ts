import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, sourcesUnder, withoutComments } from '../test/support/source-imports.ts';

/**
 * The engine runs on any fetch runtime (Node, Bun, Deno, workers): its code, its migrations
 * included, may only import packages that do too, and nothing outside itself. Node-only pieces
 * (drivers, the HTTP adapter, the file system) live in server/ and adapters/.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['engine'];
/** Packages that run on every fetch runtime. Add one only when that holds for it. */
const PORTABLE_PACKAGES = ['kysely', 'hono', 'valibot', '@valibot/to-json-schema', 'jose'];
/** Node globals that other runtimes lack or only emulate. */
const NODE_GLOBALS = /\b(?:process\.|Buffer\b|__dirname|__filename|require\(|setImmediate\()/;

const sources = (dir: string) => sourcesUnder(ROOT, dir);

/** Runtime adapters inside otherwise portable packages. */
const RUNTIME_SUBPATHS = /^hono\/(?:bun|deno|aws-lambda|lambda-edge|cloudflare-workers|cloudflare-pages|vercel|netlify|service-worker)\b/;

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isPortable = (specifier: string) => PORTABLE_PACKAGES.includes(packageOf(specifier)) && !RUNTIME_SUBPATHS.test(specifier);

/** Every problem with one file's imports and globals, as `file: problem` lines. */
function problemsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const problems: string[] = [];
  for (const specifier of importsOf(text)) {
    if (specifier.startsWith('.')) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
      if (!SCANNED.some((d) => target.startsWith(d + '/')))
        problems.push(`${file}: imports ${specifier}, outside ${SCANNED.join(' and ')}/`);
    } else if (!isPortable(specifier)) {
      problems.push(`${file}: imports ${specifier}, not a package known to run on every fetch runtime`);
    }
  }
  const global = NODE_GLOBALS.exec(withoutComments(text).replace(/\/\/.*$/gm, ''));
  if (global) problems.push(`${file}: uses the Node global ${global[0]}`);
  return problems;
}

describe('the engine is portable', () => {
  it('finds the engine and migration sources', () => {
    const files = SCANNED.flatMap(sources);
    expect(files).toContain('engine/create-engine.ts');
    expect(files).toContain('engine/schema/migrations/index.ts');
    expect(files.filter((f) => f.endsWith('.test.ts'))).toEqual([]);
  });

  it('imports only portable packages and nothing outside engine/, and uses no Node globals', () => {
    expect(SCANNED.flatMap(sources).flatMap(problemsOf)).toEqual([]);
  });

  it.each([
    [`import Database from 'better-sqlite3';`, ['better-sqlite3']],
    [`import { readFileSync } from 'node:fs';`, ['node:fs']],
    [`import { serve } from '@hono/node-server';`, ['@hono/node-server']],
    [`import type { Pool } from 'pg';`, ['pg']],
    [`export { x } from './x.ts';\nimport './side-effect.ts';`, ['./x.ts', './side-effect.ts']],
    [`const m = await import('fs');`, ['fs']],
    [`import {\n  a,\n  b,\n} from 'kysely';`, ['kysely']],
    [`// import x from 'fs';\n/* import y from 'path'; */`, []],
  ])('reads the imports of %j', (text, expected) => {
    expect(importsOf(text)).toEqual(expected);
  });

  it.each([
    ['kysely', true],
    ['hono', true],
    ['hono/cookie', true],
    ['@valibot/to-json-schema', true],
    ['better-sqlite3', false],
    ['pg', false],
    ['node:fs', false],
    ['fs', false],
    ['bun:sqlite', false],
    ['@hono/node-server', false],
    ['hono/bun', false],
    ['hono/cloudflare-workers', false],
    ['kysely-bun-sqlite', false],
  ])('counts %s as portable: %s', (specifier, portable) => {
    expect(isPortable(specifier)).toBe(portable);
  });
});
