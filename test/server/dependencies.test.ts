import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourcesUnder, withoutComments } from '../support/source-imports.ts';

/**
 * The arrows between the folders (ARCHITECTURE.md), read from the import lines of the sources:
 * the engine never imports the service, its entry points or the Node adapters; nothing in the
 * engine runs back up; and a single database is named only in its own folders.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['engine', 'adapters', 'server', 'bin'];

/** Where a file's relative import lands, from the repository root. */
const targetOf = (file: string, specifier: string) => relative(ROOT, resolve(ROOT, dirname(file), specifier));
const under = (path: string, dir: string) => path === dir || path.startsWith(dir + '/');

/** Folder arrows that must not exist: from files under `from` to files under any of `to`. */
const FORBIDDEN: readonly { from: string; to: readonly string[]; why: string }[] = [
  {
    from: 'engine',
    to: ['server', 'bin', 'migrations', 'adapters'],
    why: 'the engine is a library: the service, its entry points and the Node adapters use it, never the reverse',
  },
  { from: 'engine/errors.ts', to: ['engine/http'], why: 'errors are data; engine/http/problem.ts renders them' },
  {
    from: 'engine/dialects',
    to: ['engine/sql', 'engine/operations', 'engine/http', 'engine/query/resolve.ts', 'engine/query/parse.ts'],
    why: 'dialects are below the SQL compiler and the operations that use them',
  },
  { from: 'server', to: ['bin'], why: 'bin/ holds the entry points, which use the service' },
  { from: 'adapters', to: ['server', 'bin'], why: 'an adapter is a driver for any host, the service included' },
];

const DATABASES = ['sqlite', 'postgres'] as const;
type Database = (typeof DATABASES)[number];

/** Driver packages of one database. */
const DRIVERS: Record<string, Database> = {
  'better-sqlite3': 'sqlite',
  'bun:sqlite': 'sqlite',
  'kysely-bun-sqlite': 'sqlite',
  'node:sqlite': 'sqlite',
  pg: 'postgres',
  postgres: 'postgres',
  'pg-pool': 'postgres',
};

/** Kysely's classes of one database. */
const KYSELY_CLASSES = /\b(Sqlite|Postgres)(Dialect|Adapter|Driver|QueryCompiler|Introspector)\b/;

/** Comparing something with a database's name, e.g. `dialect.name === 'sqlite'`. */
const NAME_COMPARISON =
  /(?:[!=]==?\s*['"](sqlite|postgres(?:ql)?)['"])|(?:['"](sqlite|postgres(?:ql)?)['"]\s*[!=]==?)|(?:case\s+['"](sqlite|postgres(?:ql)?)['"]\s*:)/;

/**
 * How a file names a single database, if it does: it imports a driver package of one database,
 * a module of one database's folder (engine/dialects/<db>/, adapters/<db>/), or Kysely's class
 * of one database, or compares a value with a database's name.
 */
export function databasesNamed(file: string, text: string): string[] {
  const named: string[] = [];
  for (const specifier of importsOf(text)) {
    if (specifier.startsWith('.')) {
      const target = targetOf(file, specifier);
      const m = /^(?:engine\/dialects|adapters)\/([^/]+)\//.exec(target);
      if (m && (DATABASES as readonly string[]).includes(m[1]!)) named.push(`imports ${specifier} (${m[1]})`);
    } else {
      const pkg = specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
      if (pkg in DRIVERS) named.push(`imports the driver ${specifier} (${DRIVERS[pkg]})`);
    }
  }
  const code = withoutComments(text);
  const kyselyClass = KYSELY_CLASSES.exec(code);
  if (kyselyClass) named.push(`uses Kysely's ${kyselyClass[0]}`);
  const comparison = NAME_COMPARISON.exec(code);
  if (comparison) named.push(`compares with a database's name: ${comparison[0]}`);
  return named;
}

/** Where naming one database is the point. */
const ONE_DATABASE_HOMES: readonly { path: string; why: string }[] = [
  ...DATABASES.map((db) => ({ path: `engine/dialects/${db}`, why: 'the dialect of that database' })),
  ...DATABASES.map((db) => ({ path: `adapters/${db}`, why: 'the Node adapter of that database' })),
  {
    path: 'engine/dialects/index.ts',
    why: 'databaseOf: tells the kind of database by Kysely adapter class, the one place that maps databases to their parts',
  },
  // The service is a host: it opens its databases itself, one store per database.
  { path: 'server/tenants/sqlite.ts', why: "the service's SQLite tenant files" },
  { path: 'server/tenants/checkpointer.ts', why: "the service's SQLite checkpoint worker" },
  { path: 'server/tenants/checkpoint-worker.ts', why: "the service's SQLite checkpoint worker" },
  { path: 'server/tenants/postgres.ts', why: "the service's PostgreSQL schemas" },
  { path: 'server/tenants/named-statements.ts', why: "the service's PostgreSQL pool" },
  {
    path: 'server/tenants/migration-lock.ts',
    why: "the service's PostgreSQL dialect with a transaction-scoped migration lock (PgBouncer)",
  },
  { path: 'server/rate-limit/index.ts', why: "the service's rate-limit stores, one per database" },
  { path: 'server/rate-limit/service-limiters.ts', why: "the service's rate-limit stores, one per database" },
];

const sources = () => SCANNED.flatMap((dir) => sourcesUnder(ROOT, dir, ['.ts', '.js']));

function arrowProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const specifier of importsOf(text)) {
    if (!specifier.startsWith('.')) continue;
    const target = targetOf(file, specifier);
    for (const rule of FORBIDDEN)
      if (under(file, rule.from) && rule.to.some((to) => under(target, to))) problems.push(`${file} imports ${specifier}: ${rule.why}`);
  }
  return problems;
}

function namingProblems(file: string, text: string): string[] {
  if (ONE_DATABASE_HOMES.some((home) => under(file, home.path))) return [];
  return databasesNamed(file, text).map((how) => `${file} names one database: ${how}`);
}

const problemsOf = (file: string) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...arrowProblems(file, text), ...namingProblems(file, text)];
};

describe('dependencies between the folders', () => {
  it('finds the sources of every folder', () => {
    const files = sources();
    for (const f of [
      'engine/create-engine.ts',
      'engine/schema/migrations/index.ts',
      'adapters/sqlite/group-commit.ts',
      'server/service.ts',
      'server/migrations/index.ts',
      'bin/compile.js',
    ])
      expect(files).toContain(f);
  });

  it('no arrow runs back up, and a single database is named only in its own folders', () => {
    expect(sources().flatMap(problemsOf)).toEqual([]);
  });

  it.each([
    ['engine/operations/list.ts', `import { x } from '../../server/config.ts';`, 1],
    ['engine/schema/engine-tables.ts', `import { m } from '../../migrations/index.ts';`, 1],
    ['engine/cursor/index.ts', `import type { A } from '../../adapters/sqlite/group-commit.ts';`, 1],
    ['engine/errors.ts', `import { joinHeaders } from './http/headers.ts';`, 1],
    ['engine/dialects/sqlite/dialect.ts', `import { opaqueValues } from '../../sql/opaque-values.ts';`, 1],
    ['server/load-resources.ts', `import { isDefinitionFile } from '../bin/definition-files.js';`, 1],
    ['server/app.ts', `import { x } from '../engine/dialects/sqlite/dialect.ts';`, 0],
    ['engine/cursor/index.ts', `import { y } from './layout.ts';`, 0],
  ])('catches the arrow from %s: %s', (file, text, count) => {
    expect(arrowProblems(file, text)).toHaveLength(count);
  });

  it.each([
    ['engine/tenant-db.ts', `if (dialect.name !== 'postgres') throw new Error('x');`, 1],
    ['server/seed.ts', `const batch = t.flavour.name === 'sqlite' ? 2000 : 1000;`, 1],
    ['server/seed.ts', `switch (kind) { case 'sqlite': break; }`, 1],
    ['engine/cursor/index.ts', `import { chunkIds } from '../dialects/postgres/chunk-ids.ts';`, 1],
    ['server/app.ts', `import { GroupCommitKysely } from '../adapters/sqlite/group-commit.ts';`, 1],
    ['server/app.ts', `import Database from 'better-sqlite3';`, 1],
    ['engine/http/handle.ts', `import type { Pool } from 'pg';`, 1],
    ['engine/create-engine.ts', `import { SqliteAdapter } from 'kysely';`, 1],
    ['engine/cursor/index.ts', `// the sqlite store ('sqlite' === x)\nimport { a } from '../dialects/table-ref.ts';`, 0],
    ['engine/cursor/index.ts', `const kinds = ['sqlite', 'postgres'];`, 0],
  ])('tells whether %s names one database: %s', (file, text, count) => {
    expect(databasesNamed(file, text)).toHaveLength(count);
  });
});
