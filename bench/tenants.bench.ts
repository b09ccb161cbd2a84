/**
 * Many tenants on one database: creating them (`mrs tenant create --file`), a restart
 * (`mrs serve` until /healthz answers) and `mrs migrate` with nothing to do, at each count of
 * BENCH_TENANTS (default 1,100; e.g. 1,100,1000), as ratios against one tenant in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase } from '../test/support/pg.ts';
import { onEachDatabase } from './support/databases.ts';
import { ROOT, runCommand, SERVE } from './support/processes.ts';

const COUNTS = (process.env.BENCH_TENANTS ?? '1,100').split(',').map(Number);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Seconds from spawning `mrs serve` to its first /healthz answer (at most ten minutes). */
async function startSeconds(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, SERVE, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
  try {
    for (let i = 0; i < 12_000; i++) {
      if (child.exitCode !== null) throw new Error(`mrs serve exited ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return (performance.now() - started) / 1000;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('mrs serve did not answer /healthz');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};

export async function run(): Promise<void> {
  await onEachDatabase(async (kind) => {
    const rows: { n: number; create: number; start: number; migrate: number }[] = [];
    for (const n of COUNTS) {
      const dataDir = mkdtempSync(join(tmpdir(), 'mrs-bench-tenants-'));
      const pg = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
      const env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: pg?.url ?? '', LOG_LEVEL: 'silent' };
      try {
        const file = join(dataDir, 'tenants.txt');
        writeFileSync(file, Array.from({ length: n }, (_, i) => `bench.t${i}`).join('\n'));
        const create = await timed(() => runCommand(['bin/mrs.js', 'tenant', 'create', '--file', file], env));
        await startSeconds(env); // the first start creates demo.main; measure the restart after it
        const start = await startSeconds(env);
        const migrate = await timed(() => runCommand(['bin/mrs.js', 'migrate'], env));
        rows.push({ n, create, start, migrate });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        await pg?.drop();
      }
    }
    const one = rows[0]!;
    for (const r of rows)
      console.log(
        `${kind} ${r.n} tenants: create ${r.create.toFixed(1)} s (${((r.create / r.n) * 1000).toFixed(0)} ms each), ` +
          `restart to /healthz ${r.start.toFixed(2)} s (x${(r.start / one.start).toFixed(2)} of 1), ` +
          `migrate with nothing to do ${r.migrate.toFixed(2)} s (x${(r.migrate / one.migrate).toFixed(2)} of 1)`,
      );
  });
}
