import type { ChildProcess } from 'node:child_process';
import pg from 'pg';

/** A process a hang report shows: its name in the test and what it printed on stderr. */
export interface Watched {
  readonly name: string;
  readonly stderr: () => string;
}

/** What a hang report looks at: the test's database (direct, not through a pooler) and its processes. */
export interface Watch {
  readonly databaseUrl?: string | undefined;
  readonly processes?: () => readonly Watched[];
}

const TAIL = 1500;

/** The sessions of the watched database: which waits on what, blocked by whom, in which statement. */
async function sessions(url: string): Promise<string> {
  const datname = decodeURIComponent(new URL(url).pathname.slice(1));
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, statement_timeout: 5000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const { rows } = await c.query(
      `select pid, application_name as app, state, wait_event_type as wait_type, wait_event as wait,
         pg_blocking_pids(pid) as blocked_by, round(extract(epoch from now() - xact_start)) as xact_s,
         round(extract(epoch from now() - state_change)) as state_s, left(query, 300) as query
       from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() order by xact_start nulls last`,
      [datname],
    );
    return rows.map((r) => JSON.stringify(r)).join('\n') || '(no sessions)';
  } catch (e) {
    return `(pg_stat_activity unreadable: ${(e as Error).message})`;
  } finally {
    await c.end().catch(() => {});
  }
}

/** What a hang report says: the database's sessions and the tail of each process's stderr. */
export async function hangReport(watch: Watch): Promise<string> {
  const parts: string[] = [];
  if (watch.databaseUrl) parts.push(`pg_stat_activity:\n${await sessions(watch.databaseUrl)}`);
  for (const p of watch.processes?.() ?? []) parts.push(`${p.name} stderr (tail):\n${p.stderr().slice(-TAIL) || '(nothing)'}`);
  return parts.join('\n');
}

class Late extends Error {}

/** A wait that had no end in its time: the message names it and holds the hang report. */
export class Hung extends Error {}

/**
 * `work` given at most `ms`: past that its signal aborts and the rejection names `what` (the
 * process, the request, the phase) with the hang report, instead of the test's bare timeout.
 */
export async function within<T>(what: string, ms: number, watch: Watch, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Late());
      abort.abort(new Error(`${what}: no end after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work(abort.signal), late]);
  } catch (e) {
    if (e instanceof Late) throw new Hung(`${what}: no end after ${ms} ms\n${await hangReport(watch)}`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** A child's exit, as a promise made before it is signalled (or at once if it has exited). */
export const exitOf = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));

/**
 * SIGTERM, then the exit within `ms`; a process still running then is killed and the rejection
 * names it (a shutdown that hangs is a failure, not a wait).
 */
export async function terminate(child: ChildProcess, what: string, watch: Watch, ms = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  try {
    await within(`${what} after SIGTERM`, ms, watch, () => exited);
  } catch (e) {
    child.kill('SIGKILL');
    await exited;
    throw e;
  }
}

/** Collects a child's stderr from now on (where the spawner keeps none of its own), for hang reports. */
export function stderrOf(child: ChildProcess): () => string {
  let seen = '';
  child.stderr?.on('data', (d) => (seen = (seen + d).slice(-4 * TAIL)));
  return () => seen;
}
