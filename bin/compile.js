// Compiles the `mrs` command's TypeScript (the CLI with the engine and server it imports, and
// every definition file in resources/) into plain JavaScript with esbuild, once per change of a
// source. Running plain JavaScript needs no TypeScript loader: on Node 20 a loader (tsx) runs in
// a thread of its own with its own heap and keeps its transpiled sources, tens of MiB more
// resident than the same server compiled (BENCHMARKS.md).
import { build, stop } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILED_FROM, isDefinitionFile, STEP_FILE } from '../server/definition-files.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The CLI's entry, compiled to `server/mrs.mjs` in the build: beside where load-resources.ts
 * sits in the sources, so its `../resources` finds the compiled definitions in the build.
 */
const ENTRY = { in: 'server/cli/run.ts', out: 'server/mrs' };

/** Builds older than this that are not the current one are removed (a process may still be importing one). */
const KEEP_OLD_MS = 10 * 60_000;

function definitionFiles(folder) {
  try {
    return readdirSync(folder).filter(isDefinitionFile).sort();
  } catch {
    return [];
  }
}

/** The deployment's migration steps (server/load-steps.ts reads the same files). */
function stepFiles(folder) {
  try {
    return readdirSync(folder)
      .filter((f) => STEP_FILE.test(f))
      .sort();
  } catch {
    return [];
  }
}

function readManifest(cache) {
  try {
    return JSON.parse(readFileSync(join(cache, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Current while no source or setting it was built from changed since, and the same folders hold the same files. */
function isCurrent(manifest, root, cache, folders, resources, steps) {
  if (!manifest || manifest.resources.join('\n') !== resources.join('\n')) return false;
  if ((manifest.steps ?? []).join('\n') !== steps.join('\n')) return false;
  if (manifest.resourcesDir !== folders.resources || manifest.migrationsDir !== folders.migrations) return false;
  try {
    statSync(join(cache, manifest.dir, `${ENTRY.out}.mjs`));
    return manifest.inputs.every((f) => statSync(join(root, f)).mtimeMs < manifest.builtAt);
  } catch {
    return false;
  }
}

/**
 * The path of the compiled CLI for the sources under `root`, built into `cache` when missing or
 * out of date. Each build goes to a folder of its own and becomes current by an atomic rename of
 * the manifest, so processes starting together never read a half-written build. The definitions
 * and steps come from RESOURCES_DIR and MIGRATIONS_DIR when set (server/config.ts), as at run time.
 */
export async function compiledCli(root = ROOT, cache = join(root, 'node_modules', '.cache', 'mrs'), env = process.env) {
  const folders = {
    resources: env.RESOURCES_DIR ? resolve(env.RESOURCES_DIR) : join(root, 'resources'),
    migrations: env.MIGRATIONS_DIR ? resolve(env.MIGRATIONS_DIR) : join(root, 'migrations'),
  };
  const resources = definitionFiles(folders.resources);
  const steps = stepFiles(folders.migrations);
  const current = readManifest(cache);
  if (isCurrent(current, root, cache, folders, resources, steps)) return join(cache, current.dir, `${ENTRY.out}.mjs`);

  // Sources saved during the build are newer than builtAt: the next start builds again.
  const builtAt = Date.now();
  const dir = `build-${builtAt}-${process.pid}`;
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      ENTRY,
      ...[
        ...resources.map((f) => ({ in: join(folders.resources, f), out: `resources/${f}` })),
        ...steps.map((f) => ({ in: join(folders.migrations, f), out: `migrations/${f}` })),
      ].map((f) => ({ in: f.in, out: f.out.replace(/\.(ts|js|mjs)$/, '') })),
    ],
    outdir: join(cache, dir),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Packages stay imports: node_modules is found from the cache, which lies inside it.
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    metafile: true,
    logLevel: 'silent',
  }).finally(() =>
    // esbuild answers from a child process it keeps for later builds; there are none in this
    // process, and the server would otherwise carry that child for its whole life.
    stop(),
  );
  // Besides the sources: what decides how they compile (esbuild reads tsconfig.json and
  // package.json; this file holds its options).
  const settings = ['tsconfig.json', 'package.json', 'bin/compile.js'].filter((f) => existsSync(join(root, f)));
  // A step is known by its source's checksum, compiled or not (server/load-steps.ts).
  if (steps.length > 0) {
    const checksums = Object.fromEntries(
      steps.map((f) => [
        f.replace(/\.(ts|js|mjs)$/, ''),
        createHash('sha256')
          .update(readFileSync(join(folders.migrations, f)))
          .digest('hex'),
      ]),
    );
    mkdirSync(join(cache, dir, 'migrations'), { recursive: true });
    writeFileSync(join(cache, dir, 'migrations', 'checksums.json'), JSON.stringify(checksums));
  }
  // Which folders these copies are of: the loaders take them for those folders (server/definition-files.js).
  for (const [name, from] of Object.entries(folders)) {
    mkdirSync(join(cache, dir, name), { recursive: true });
    writeFileSync(join(cache, dir, name, COMPILED_FROM), JSON.stringify(from));
  }
  const manifest = {
    dir,
    builtAt,
    resources,
    steps,
    resourcesDir: folders.resources,
    migrationsDir: folders.migrations,
    inputs: [...Object.keys(result.metafile.inputs), ...settings],
  };
  const tmp = join(cache, `manifest.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(manifest));
  renameSync(tmp, join(cache, 'manifest.json'));
  removeOldBuilds(cache, dir);
  return join(cache, dir, `${ENTRY.out}.mjs`);
}

function removeOldBuilds(cache, keep) {
  for (const name of readdirSync(cache)) {
    if (!name.startsWith('build-') || name === keep) continue;
    const builtAt = Number(name.split('-')[1]);
    if (Date.now() - builtAt > KEEP_OLD_MS) rmSync(join(cache, name), { recursive: true, force: true });
  }
}
