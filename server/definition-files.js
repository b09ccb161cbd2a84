// Which files of a resources folder are collection definitions. Plain JavaScript: bin/compile.js
// needs it before any TypeScript is compiled, and server/load-resources.ts uses the same rule.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Scripts, not declaration files or tests. */
export const isDefinitionFile = (name) => /\.(ts|js|mjs)$/.test(name) && !/\.(d|test)\.ts$/.test(name);

/** A migration step of the migrations folder: `0001-fill-site.ts`. */
export const STEP_FILE = /^\d+-[A-Za-z0-9_.-]+\.(ts|js|mjs)$/;

/** In a compiled folder of definitions or steps: the folder its files were compiled from. */
export const COMPILED_FROM = 'compiled-from.json';

/**
 * The folder to load definitions or steps from: `builtin` (resources/ or migrations/ beside the
 * server, compiled copies in the compiled CLI) unless a setting names another; that one, or
 * `builtin` when it holds that folder's compiled copies (the compiled CLI imports no TypeScript).
 */
export function folderToLoad(configured, builtin) {
  if (configured === undefined) return builtin;
  const wanted = resolve(configured);
  try {
    return JSON.parse(readFileSync(join(builtin, COMPILED_FROM), 'utf8')) === wanted ? builtin : wanted;
  } catch {
    return wanted;
  }
}
