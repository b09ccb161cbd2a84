import type BetterSqlite3 from 'better-sqlite3';
import type * as WorkerThreads from 'node:worker_threads';

/** What the checkpoint worker is told (Checkpointer), and what it tells back. */
export type ToWorker = { readonly type: 'watch' | 'forget'; readonly file: string } | { readonly type: 'stop' };
export type FromWorker =
  | { readonly type: 'checkpointed'; readonly file: string; readonly log: number; readonly checkpointed: number }
  | { readonly type: 'failed'; readonly file: string; readonly message: string };

export interface WorkerData {
  /** The resolved path of the better-sqlite3 package. */
  readonly driver: string;
  readonly intervalMs: number;
  /** Whether to post a message for each checkpoint that found frames. */
  readonly report: boolean;
}

/**
 * The worker thread's program: a connection per watched file, a PASSIVE checkpoint of each every
 * interval. It runs as source text in the worker (workerSource), so it reaches nothing outside
 * its parameters: a worker of source needs no TypeScript loader (tsx, Bun) and no file beside
 * the compiled build, and this function is still type-checked.
 */
export function checkpointWorker(threads: typeof WorkerThreads, Database: typeof BetterSqlite3): void {
  const port = threads.parentPort!;
  const data = threads.workerData as WorkerData;
  const open = new Map<string, BetterSqlite3.Database>();
  const post = (m: FromWorker) => port.postMessage(m);
  const messageOf = (e: unknown) => String((e as Error | undefined)?.message ?? e);
  const checkpointAll = () => {
    for (const [file, db] of open) {
      try {
        const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
        if (data.report && r && r.log > 0) post({ type: 'checkpointed', file, log: r.log, checkpointed: r.checkpointed });
      } catch (e) {
        post({ type: 'failed', file, message: messageOf(e) });
      }
    }
  };
  const timer = setInterval(checkpointAll, data.intervalMs);
  port.on('message', (m: ToWorker) => {
    if (m.type === 'watch' && !open.has(m.file)) {
      try {
        open.set(m.file, new Database(m.file, { fileMustExist: true }));
      } catch (e) {
        post({ type: 'failed', file: m.file, message: messageOf(e) });
      }
    } else if (m.type === 'forget') {
      open.get(m.file)?.close();
      open.delete(m.file);
    } else if (m.type === 'stop') {
      clearInterval(timer);
      checkpointAll();
      for (const db of open.values()) db.close();
      open.clear();
      port.close();
    }
  });
}

/**
 * checkpointWorker as a worker's source (CommonJS, `eval: true`). A transpiler that keeps
 * function names (esbuild's keepNames, as tsx runs it) calls a `__name` helper inside the
 * function's text: it is defined here, as the identity.
 */
export const workerSource = () =>
  `const __name = (f) => f;
  const threads = require('node:worker_threads');
  (${checkpointWorker.toString()})(threads, require(threads.workerData.driver));`;
