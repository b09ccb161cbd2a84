import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house rules a reviewer would otherwise check by eye (ARCHITECTURE.md, STYLE.md): small
 * files, small database interfaces, and comments that say why rather than when.
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** Every file under `dirs` ending in one of `extensions`, relative to the root. */
function filesUnder(dirs: readonly string[], extensions: readonly string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && extensions.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.d.ts'))
      .map((e) => relative(ROOT, join(e.parentPath, e.name)))
      .filter((f) => !f.split('/').includes('node_modules')),
  );
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const linesOf = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

export const MAX_LINES = 350;

/**
 * Files over MAX_LINES today, each with the most lines it may have: a ceiling that may only come
 * down (lower it when the file shrinks; drop the entry when it is under MAX_LINES).
 */
export const LONG_FILES: Readonly<Record<string, { lines: number; why: string }>> = {};

/** Files in engine/, server/ and adapters/ over their ceiling. */
export function longFiles(lines: Readonly<Record<string, number>>): string[] {
  return Object.entries(lines)
    .filter(([file, n]) => n > (LONG_FILES[file]?.lines ?? MAX_LINES))
    .map(([file, n]) => `${file}: ${n} lines (at most ${LONG_FILES[file]?.lines ?? MAX_LINES})`);
}

export const MAX_MEMBERS = 12;

/** Where the interfaces a database implements are declared. */
const DATABASE_INTERFACE_FILES = [
  ...readdirSync(join(ROOT, 'engine/dialects'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => `engine/dialects/${f}`),
  'engine/cursor/snapshot-store.ts',
  'engine/events/event-log.ts',
];

/** Database interfaces over MAX_MEMBERS today, each with the most members it may have (as LONG_FILES). */
export const LARGE_INTERFACES: Readonly<Record<string, { members: number; why: string }>> = {};

/** The interfaces declared in a source, with their member counts. */
export function interfacesOf(file: string, text: string): { name: string; members: number }[] {
  const found: { name: string; members: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node)) found.push({ name: node.name.text, members: node.members.length });
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

export function largeInterfaces(found: readonly { name: string; members: number }[]): string[] {
  return found
    .filter((i) => i.members > (LARGE_INTERFACES[i.name]?.members ?? MAX_MEMBERS))
    .map((i) => `${i.name}: ${i.members} members (at most ${LARGE_INTERFACES[i.name]?.members ?? MAX_MEMBERS})`);
}

/** The text of every comment in a source, as the TypeScript parser finds them (not `//` in a string). */
export function commentsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const comments: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      comments.push(text.slice(r.pos, r.end));
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return comments;
}

const ORDINALS = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\\d+(?:st|nd|rd|th)';

/**
 * A comment narrating the project's history: an issue or pull request by number, or a working
 * session (an ordinal or "last" before the word); a database session is not history.
 */
const HISTORY = [
  /\bissues?\s*#?\d+/i,
  /\b(?:pull request|PR)\s*#?\d+/i,
  new RegExp(`\\b(?:${ORDINALS}|last|previous|this|earlier|later|next|our|the same) sessions?\\b`, 'i'),
  /\bsessions?\s+#?\d+/i,
];

export function historyIn(comment: string): string | undefined {
  for (const re of HISTORY) {
    const m = re.exec(comment);
    if (m) return m[0];
  }
  return undefined;
}

const CODE_DIRS = ['engine', 'server', 'adapters'];
const COMMENTED_DIRS = [...CODE_DIRS, 'bin', 'test', 'test-bun', 'bench', 'resources', 'examples'];

describe('the house rules', () => {
  it(`no file in ${CODE_DIRS.join(', ')} over ${MAX_LINES} lines, but the listed ones, which may only shrink`, () => {
    const files = filesUnder(CODE_DIRS, ['.ts', '.js']);
    expect(files).toContain('engine/create-engine.ts');
    expect(longFiles(Object.fromEntries(files.map((f) => [f, linesOf(read(f))])))).toEqual([]);
  });

  it('tells a file over its ceiling', () => {
    expect(longFiles({ 'engine/a.ts': 350, 'engine/b.ts': 351 })).toEqual(['engine/b.ts: 351 lines (at most 350)']);
  });

  it(`no database interface over ${MAX_MEMBERS} members, but the listed ones, which may only shrink`, () => {
    const found = DATABASE_INTERFACE_FILES.flatMap((f) => interfacesOf(f, read(f)));
    for (const name of ['SqlFlavour', 'Supports', 'Catalog', 'Locks', 'DatabaseKind', 'SnapshotStore', 'EventLog'])
      expect(found.map((i) => i.name)).toContain(name);
    expect(largeInterfaces(found)).toEqual([]);
    // Kysely's own interface of a database is its Dialect: the engine's parts are named otherwise.
    expect(found.map((i) => i.name)).not.toContain('Dialect');
  });

  it('the database interface stays inside the engine: no entry of the package exports it', () => {
    const manifest = JSON.parse(read('package.json')) as { exports: Record<string, string | { source?: string }> };
    const sources = Object.values(manifest.exports).flatMap((e) =>
      typeof e === 'object' && e.source ? [e.source.replace(/^\.\//, '')] : [],
    );
    expect(sources).toContain('engine/index.ts');
    const exported = sources.filter((f) => /^export\b[^;]*\b(DatabaseKind|SqlFlavour|Supports|Catalog|Locks|databaseOf)\b/m.test(read(f)));
    expect(exported).toEqual([]);
  });

  it('counts the members of an interface', () => {
    const members = Array.from({ length: 13 }, (_, i) => `  m${i}(): void;`).join('\n');
    const found = interfacesOf('x.ts', `export interface Store {\n${members}\n}\ninterface Small { a: 1 }`);
    expect(found).toEqual([
      { name: 'Store', members: 13 },
      { name: 'Small', members: 1 },
    ]);
    expect(largeInterfaces(found)).toEqual(['Store: 13 members (at most 12)']);
  });

  it('no comment names an issue, a pull request or a working session', () => {
    const files = filesUnder(COMMENTED_DIRS, ['.ts', '.js', '.mjs']);
    expect(files).toContain('bench/ab.ts');
    const problems = files.flatMap((f) =>
      commentsOf(f, read(f)).flatMap((c) => {
        const found = historyIn(c);
        return found === undefined ? [] : [`${f}: "${found}" in ${c.slice(0, 80)}`];
      }),
    );
    expect(problems).toEqual([]);
  }, 120_000); // parses every source file: seconds when idle, far longer on a loaded machine

  it.each([
    ['// the limiter (issue 6) or any other gate', 'issue 6'],
    ['/** Issue 28: a keyed write */', 'Issue 28'],
    ['// as the twelfth session found', 'twelfth session'],
    ['// measured last session', 'last session'],
    ['// see PR #12', 'PR #12'],
    ["// a session's LISTEN is lost behind a transaction pooler", undefined],
    ['// one server session per connection', undefined],
    ['// the issuer of the token', undefined],
  ])('tells history in %s', (comment, found) => {
    expect(historyIn(comment)).toBe(found);
  });

  it('reads comments, not strings', () => {
    const text = `const url = 'http://x/issue 4'; // why: a url\n/* block */ const b = 1;\nconst t = \`// issue 5\`;`;
    expect(commentsOf('x.ts', text)).toEqual(['// why: a url', '/* block */']);
  });
});
