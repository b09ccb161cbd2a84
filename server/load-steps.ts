import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { MigrationStep } from '../engine/schema/index.ts';
import { folderToLoad, STEP_FILE } from './definition-files.js';

/** The deployment's own migration steps (beside resources/; in the compiled CLI, their compiled copies). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** What a step file exports by default. */
export interface StepModule {
  up: MigrationStep['up'];
  onNewTenant?: MigrationStep['onNewTenant'];
}

/** A migration step file's default export: `export default defineStep({ async up({ db }) { ... } })`. */
export const defineStep = (step: StepModule): StepModule => step;

/** The checksum of a step is its source's: the compiled CLI keeps the sources' checksums beside its copies. */
const checksumsOf = (dir: string): Record<string, string> | undefined => {
  const file = join(dir, 'checksums.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : undefined;
};

export const sourceChecksum = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Every step file of a folder (`<sequence>-<name>.ts`), in file name order; the step's name is the
 * file's without extension. The folder is migrations/ unless `configured` (MIGRATIONS_DIR) names another.
 */
export async function loadSteps(configured?: string): Promise<MigrationStep[]> {
  const dir = folderToLoad(configured, MIGRATIONS_DIR);
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((f) => STEP_FILE.test(f)).sort();
  const checksums = checksumsOf(dir);
  const steps: MigrationStep[] = [];
  for (const file of files) {
    const name = file.replace(/\.(ts|js|mjs)$/, '');
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: Partial<StepModule> };
    if (typeof mod.default?.up !== 'function') throw new Error(`migrations/${file}: the default export must be defineStep({ up })`);
    const source = checksums?.[name] ?? sourceChecksum(readFileSync(join(dir, file), 'utf8'));
    steps.push({ name, up: mod.default.up, source, ...(mod.default.onNewTenant ? { onNewTenant: mod.default.onNewTenant } : {}) });
  }
  return steps;
}
