// Which files of a resources folder are collection definitions. Plain JavaScript: bin/compile.js
// needs it before any TypeScript is compiled, and server/load-resources.ts uses the same rule.

/** Scripts, not declaration files or tests. */
export const isDefinitionFile = (name) => /\.(ts|js|mjs)$/.test(name) && !/\.(d|test)\.ts$/.test(name);

/** A migration step of the migrations folder: `0001-fill-site.ts`. */
export const STEP_FILE = /^\d+-[A-Za-z0-9_.-]+\.(ts|js|mjs)$/;
