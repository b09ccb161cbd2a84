#!/usr/bin/env node
// The `mrs` command. Its TypeScript is compiled to plain JavaScript on the first run after a
// source changed (bin/compile.js, about 0.1 s) and run from node_modules/.cache/mrs; there is no
// build step to remember. Where that cannot be written, the sources run through tsx instead.
import { compiledCli } from './compile.js';

let entry;
try {
  entry = await compiledCli();
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('../server/cli/run.ts', import.meta.url).href;
}
await import(entry);
