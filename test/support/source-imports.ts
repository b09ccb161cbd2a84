import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Reading a source file's imports from its text, for the tests that check the arrows between folders. */

const SPECIFIER = [
  /\b(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** The text without its comments. */
export const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Every module specifier a source imports or re-exports, type-only ones included. */
export function importsOf(text: string): string[] {
  const code = withoutComments(text);
  return SPECIFIER.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]!));
}

/** The sources under `dir` (relative to `root`), tests and declaration files left out. */
export function sourcesUnder(root: string, dir: string, extensions = ['.ts']): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && extensions.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}
