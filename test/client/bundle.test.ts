import { build } from 'esbuild';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/** The client as a browser bundle: esbuild, minified, then gzipped; nothing of Node's in it. */
const ENTRY = resolve(import.meta.dirname, '../../client/index.ts');

describe("the client's browser bundle", () => {
  it('is under 15 KB minified and gzipped, and imports nothing', async () => {
    const out = await build({ entryPoints: [ENTRY], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false });
    const code = out.outputFiles[0]!.contents;
    const gzipped = gzipSync(code, { level: 9 }).length;
    expect(gzipped).toBeLessThan(15 * 1024);
    expect(out.warnings).toEqual([]);
    expect(new TextDecoder().decode(code)).not.toMatch(/\bimport\s*[{*\w].*\bfrom\s*["']/);
  });
});
