import { spawn, type ChildProcess } from 'node:child_process';
import { BASE } from './harness.ts';
import { MRS, serveChild } from './serve-child.ts';

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** The `mrs` command line as a child process: its stdout, trimmed, or a rejection with its stderr. */
export function mrs(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MRS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`mrs ${args.join(' ')}: ${code} ${err}`))));
  });
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

/** The processes serving, each replaced when killed: clients pick one of the live ones per call. */
export class Fleet {
  readonly servers: { origin: string; child: ChildProcess }[] = [];
  constructor(readonly env: Record<string, string>) {}
  async start(n: number) {
    for (let i = 0; i < n; i++) this.servers.push(await serveChild(this.env));
  }
  origin(): string {
    return pick(this.servers).origin;
  }
  /** SIGKILL one process, and start another in its place once it is dead. */
  async killOne(): Promise<void> {
    const i = Math.floor(Math.random() * this.servers.length);
    const { child } = this.servers[i]!;
    const dead = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await dead;
    this.servers[i] = await serveChild(this.env);
  }
  /** The admin of demo.main's bearer token, from a key made with the command line. */
  async adminToken(): Promise<string> {
    const key = await mrs(['key', 'create', 'demo.main', 'admin'], this.env);
    const auth = await fetch(`${this.origin()}${BASE}/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
    });
    return ((await auth.json()) as { access_token: string }).access_token;
  }
  async stop() {
    for (const { child } of this.servers) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** The test process's environment without DATABASE_URL: each chaos run names its own database. */
export const chaosBase = (): Record<string, string> => {
  const env = { ...(process.env as Record<string, string>) };
  delete env.DATABASE_URL;
  return env;
};
