import { spawn, type ChildProcess } from 'node:child_process';
import { BASE } from './harness.ts';
import { exitOf, hangReport, terminate, within, type Watch } from './hang.ts';
import { MRS, postgresOf, serveChild } from './serve-child.ts';

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** The `mrs` command line as a child process: its stdout, trimmed, or a rejection with its stderr (killed after `ms`). */
export async function mrs(args: string[], env: Record<string, string>, ms = 90_000): Promise<string> {
  const child = spawn(process.execPath, [MRS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  const watch = { databaseUrl: postgresOf(env), processes: () => [{ name: `mrs ${args.join(' ')}`, stderr: () => err }] };
  try {
    const code = await within(`mrs ${args.join(' ')}`, ms, watch, () => closed);
    if (code !== 0) throw new Error(`mrs ${args.join(' ')}: ${code} ${err}`);
    return out.trim();
  } finally {
    child.kill('SIGKILL');
  }
}

/** The environment a chaos test serves with: any port, quiet, and a rate limit no test reaches. */
export const chaosEnv = (env: Record<string, string>): Record<string, string> => ({
  ...env,
  PORT: '0',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'c'.repeat(40),
  RATE_LIMIT_MAX: '1000000000',
  TOKEN_TTL_S: '3600',
});

type Server = { origin: string; child: ChildProcess; stderr: () => string };

/** How long one request of a chaos test may take before it counts as hung (a 20 MB upload on a loaded machine included). */
export const REQUEST_MS = 60_000;

/** The processes serving, each replaced when killed: clients pick one of the live ones per call. */
export class Fleet {
  readonly servers: Server[] = [];
  /** Every process started, killed ones too: a hang report shows what each said. */
  private readonly started: Server[] = [];
  /** What a hang report shows: the database's sessions and every process's stderr. */
  readonly watch: Watch;
  constructor(readonly env: Record<string, string>) {
    this.watch = {
      databaseUrl: postgresOf(env),
      processes: () => this.started.map((s) => ({ name: `mrs serve ${s.child.pid} (${s.origin})`, stderr: s.stderr })),
    };
  }
  private async serve(): Promise<Server> {
    const server = await serveChild(this.env);
    this.started.push(server);
    return server;
  }
  async start(n: number) {
    for (let i = 0; i < n; i++) this.servers.push(await this.serve());
  }
  origin(): string {
    return pick(this.servers).origin;
  }
  /**
   * A request to one of the live processes and `read` of its answer, at most `ms` together: past
   * that it is aborted and the rejection names it, with the hang report.
   */
  request<T>(path: string, init: RequestInit, read: (r: Response) => Promise<T>, ms = REQUEST_MS): Promise<T> {
    const origin = this.origin();
    const what = `${init.method ?? 'GET'} ${origin}${path}`;
    return within(what, ms, this.watch, async (signal) => read(await fetch(`${origin}${path}`, { ...init, signal })));
  }
  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return this.request(path, init, async (r) => r);
  }
  /** What the hang report says now (for a wait the fleet does not make itself). */
  report(): Promise<string> {
    return hangReport(this.watch);
  }
  /** SIGKILL one process, and start another in its place once it is dead. */
  async killOne(): Promise<void> {
    const i = Math.floor(Math.random() * this.servers.length);
    const { child } = this.servers[i]!;
    const dead = exitOf(child);
    child.kill('SIGKILL');
    await within(`mrs serve ${child.pid} dying of SIGKILL`, 10_000, this.watch, () => dead);
    this.servers[i] = await this.serve();
  }
  /** The admin of demo.main's bearer token, from a key made with the command line. */
  async adminToken(): Promise<string> {
    const key = await mrs(['key', 'create', 'demo.main', 'admin'], this.env);
    const auth = await this.fetch(`${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    return ((await auth.json()) as { access_token: string }).access_token;
  }
  /** Stops the fleet after `failure`, which it returns: a stop that fails too is told after it, not in its place. */
  async stopAfter(failure: unknown): Promise<unknown> {
    await this.stop().catch((e: Error) => {
      if (failure instanceof Error) failure.message += `\nthen, stopping the fleet: ${e.message}`;
    });
    return failure;
  }
  /** SIGTERM to every process at once, each given 30 s to exit: one that does not is killed, and named in the rejection. */
  async stop() {
    const stopped = await Promise.allSettled(
      this.servers.map((s) => terminate(s.child, `mrs serve ${s.child.pid} (${s.origin})`, this.watch)),
    );
    const hung = stopped.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
    if (hung.length > 0) throw new Error(hung.map((e) => e.message).join('\n'));
  }
}

/** The test process's environment without DATABASE_URL: each chaos run names its own database. */
export const chaosBase = (): Record<string, string> => {
  const env = { ...(process.env as Record<string, string>) };
  delete env.DATABASE_URL;
  return env;
};
