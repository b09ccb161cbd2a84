import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { folderToLoad, isDefinitionFile } from './definition-files.js';
import type { ResourceDefinition } from '../engine/define.ts';

export const RESOURCES_DIR = fileURLToPath(new URL('../resources', import.meta.url));

const isDefinition = (x: unknown): x is ResourceDefinition =>
  typeof x === 'object' && x !== null && typeof (x as ResourceDefinition).name === 'string' && 'fields' in x;

/**
 * Every definition file in a folder (default export), sorted by file name: adding a file adds a
 * collection. The folder is resources/ beside the server unless `configured` (RESOURCES_DIR) names another.
 */
export async function loadResources(configured?: string): Promise<ResourceDefinition[]> {
  const dir = folderToLoad(configured, RESOURCES_DIR);
  const files = (await readdir(dir)).filter(isDefinitionFile).sort();
  const out: ResourceDefinition[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
    if (!isDefinition(mod.default)) throw new Error(`resources/${file}: the default export must be a defineResource(...)`);
    out.push(mod.default);
  }
  return out;
}
