import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const lines = (path: string) => read(path).trimEnd().split('\n').length;

/** Pages docs/README.md lists that other work writes: linked before they exist. */
const MARKDOWN = [
  'README.md',
  'ARCHITECTURE.md',
  'BENCHMARKS.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A heading's anchor as GitHub makes it. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(path: string): Set<string> {
  const text = read(path).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Every file of the code that a comment could name a section of BENCHMARKS.md in. */
function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? codeFiles(join(dir, e.name)) : /\.(ts|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('the docs are a map', () => {
  it('the README reads in one sitting and BENCHMARKS.md holds today’s figures: at most 400 lines each', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(400);
    expect(lines('BENCHMARKS.md')).toBeLessThanOrEqual(400);
    // Measurements on their way in go below this line, so merges meet at the end.
    expect(read('BENCHMARKS.md')).toContain('\n<!-- new measurements below this line -->\n');
  });

  it('every link between the pages leads to a file and a heading that exist', () => {
    const broken: string[] = [];
    for (const page of MARKDOWN) {
      const text = read(page).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const path = file === '' ? page : normalize(join(dirname(page), file));
        if (!existsSync(join(ROOT, path))) {
          broken.push(`${page}: ${target} (no file)`);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(`${page}: ${target} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every section of BENCHMARKS.md a code comment names exists', () => {
    const headings = [...read('BENCHMARKS.md').matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!.toLowerCase());
    const missing: string[] = [];
    for (const file of [...['engine', 'server', 'adapters', 'bin', 'bench'].flatMap(codeFiles), ...MARKDOWN]) {
      // A comment's lines joined, so a name broken over two lines reads whole.
      const text = read(file).replace(/\n\s*(\*|\/\/)\s*/g, ' ');
      for (const [, name] of text.matchAll(/BENCHMARKS\.md, "([^"]+)"/g)) {
        if (!headings.some((h) => h.includes(name!.toLowerCase()))) missing.push(`${file}: "${name}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('CI runs the test command the README gives', () => {
    expect(read('README.md')).toMatch(/```sh\nnpm test\b/);
    expect(read('.ci/run')).toMatch(/^npm test$/m);
  });
});
