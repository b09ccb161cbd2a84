/**
 * `npm run bench [name ...]`: runs every bench/*.bench.ts (or the named ones) in turn.
 * Each prints its figures as ratios against baselines measured in the same run.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(' ')}`);
  process.exit(2);
}
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const mod = (await import(pathToFileURL(dir + f).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${f} must export run()`);
  await mod.run();
}
