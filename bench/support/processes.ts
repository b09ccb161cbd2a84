import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `mrs serve` as `npm start` runs it (package.json): the node flags, then the command. SERVE_FLAGS
 * replaces the flags (space-separated), to measure another setting of V8's heap.
 */
export const SERVE = [
  ...(process.env.SERVE_FLAGS ?? '--max-semi-space-size=8 --heap-growing-percent=20').split(' ').filter(Boolean),
  'bin/mrs.js',
  'serve',
];

/**
 * Starts a server process (pinned to CPU 0 when taskset exists, unless `pin` is false: several
 * processes that should share the cores) and waits until it answers, at most `waitMs` (a start
 * that migrates many tenants first takes longer).
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  probeUrl: string,
  pin = true,
  waitMs = 90_000,
): Promise<ChildProcess> {
  const pinned = pin && process.platform === 'linux' ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const child = spawn(pinned[0]!, [...pinned.slice(1), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  // A loaded machine may take a minute to start a process that compiles on first use.
  for (const until = Date.now() + waitMs; Date.now() < until;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      await fetch(probeUrl);
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill();
  throw new Error(`server did not answer at ${probeUrl}: ${stderr}`);
}

/** Runs a command to completion and returns its stdout. */
export async function runCommand(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? 1)));
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${err}`);
  return out;
}

/** Resident set size of a process, in MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * CPU time a process has used so far (user + system), in microseconds (Linux: /proc, in clock
 * ticks of 10 ms). Over a load of thousands of requests, CPU per request moves far less with
 * the machine's drift than requests per second do.
 */
/**
 * The whole machine's busy CPU time so far, in microseconds (Linux, /proc/stat: every core's
 * time in anything but idle, I/O wait and steal): a run's cost including what a server's own
 * count leaves out, such as PostgreSQL's processes and the load generator. Steal, the time a
 * virtual machine's host ran something else instead, is not the run's.
 */
export async function machineBusyMicros(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const [user, nice, system, , , irq, softirq] = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.split(/ +/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq!) * 10_000;
}

/**
 * The CPU time so far of every process named `name` (Linux, /proc), in microseconds, with the
 * time of their children that have exited: for PostgreSQL's backends, which come and go with the
 * server's connections (a pool closes idle ones). A backend that exits between two readings
 * moves its time into the postmaster's count of its exited children, so the sum still holds it.
 */
export async function processesCpuMicros(name: string): Promise<number> {
  const { readdir, readFile } = await import('node:fs/promises');
  let total = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const open = stat.indexOf(' ('),
      close = stat.lastIndexOf(') ');
    if (open < 0 || stat.slice(open + 2, close) !== name) continue;
    const fields = stat.slice(close + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10_000;
  }
  return total;
}

export async function cpuMicros(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
