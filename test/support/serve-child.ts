import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { terminate, within } from './hang.ts';

export const MRS = join(import.meta.dirname, '..', '..', 'bin', 'mrs.js');

/** The PostgreSQL database a process's environment names, direct (the migration's URL bypasses a pooler), if any. */
export const postgresOf = (env: Record<string, string | undefined>): string | undefined =>
  [env.MIGRATE_DATABASE_URL, env.DATABASE_URL].find((u) => u !== undefined && /^postgres(ql)?:/.test(u));

/** How long a start may take on a loaded machine before it counts as hung. */
const START_MS = 90_000;

/** `mrs serve` as a child process (stdout ignored); resolves once it listens and printed its banner, with its origin and what it printed on stderr so far. */
export async function serveChild(
  env: Record<string, string>,
  mrs = MRS,
): Promise<{ origin: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [mrs, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let seen = '';
  const stderr = () => seen;
  const watch = { databaseUrl: postgresOf(env), processes: () => [{ name: `mrs serve ${child.pid}`, stderr }] };
  const banner = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      seen += d;
      const m = /mrs serving (https?:\/\/127\.0\.0\.1:\d+)\/[^]*API key:.*\n/.exec(seen);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mrs serve exited ${code}: ${seen}`)));
  });
  try {
    return { origin: await within(`mrs serve ${child.pid} starting (its banner)`, START_MS, watch, () => banner), child, stderr };
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

/** SIGTERM, then waits for the exit (bounded: a process that does not stop is killed, and that is an error). */
export const stopChild = (child: ChildProcess): Promise<void> => terminate(child, `mrs serve ${child.pid}`, {});
