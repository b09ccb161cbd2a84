import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocsAsset, DocsAssets } from '../engine/openapi/routes.ts';

/** The files of swagger-ui-dist the page needs, served from the installed package (no CDN). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * The docs page's files, read once from the installed swagger-ui-dist: the engine's `apiDocs`
 * option takes them (`maintenance-records/docs`). Reading files is what Node and Bun can do
 * and a worker runtime cannot, so this stays outside the engine, at the host's edge.
 */
export function swaggerUiAssets(): DocsAssets {
  const files = new Map<string, DocsAsset>();
  let dir: string | undefined;
  return (name) => {
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) return undefined;
    let file = files.get(name);
    if (!file) {
      dir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
      files.set(name, (file = { body: readFileSync(join(dir, name), 'utf8'), type }));
    }
    return file;
  };
}
