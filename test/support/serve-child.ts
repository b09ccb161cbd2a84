import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const MRS = join(import.meta.dirname, '..', '..', 'bin', 'mrs.js');

/** `mrs serve` as a child process (stdout ignored); resolves once it listens and printed its banner, with its origin and what it printed on stderr so far. */
export async function serveChild(
  env: Record<string, string>,
  mrs = MRS,
): Promise<{ origin: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [mrs, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let seen = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      seen += d;
      const m = /mrs serving (https?:\/\/127\.0\.0\.1:\d+)\/[^]*API key:.*\n/.exec(seen);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mrs serve exited ${code}: ${seen}`)));
  });
  return { origin, child, stderr: () => seen };
}

/** SIGTERM, then waits for the exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
