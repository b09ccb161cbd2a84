import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite's automatic checkpoint (copying the write-ahead log back into the database file) runs
 * inside the write that crosses the threshold, on the serving thread, and waits for the disk:
 * measured on a 100,000-row table with eight indexes, it is more than half of a small write's
 * time, and almost all of it waiting rather than computing. A worker thread with its own
 * connection runs PASSIVE checkpoints instead, which wait for no reader or writer; the serving
 * connections keep a high automatic threshold only as a backstop (see BACKSTOP_PAGES).
 */

/** The serving connections' own threshold, reached only if the worker falls behind or stops. */
export const BACKSTOP_PAGES = 10_000;

/** Plain JavaScript, so the worker needs no TypeScript loader (tsx, Bun). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const open = new Map();
function checkpointAll() {
  for (const [file, db] of open) {
    try {
      const [r] = db.pragma('wal_checkpoint(PASSIVE)');
      if (workerData.report && r.log > 0) parentPort.postMessage({ type: 'checkpointed', file, log: r.log, checkpointed: r.checkpointed });
    } catch (e) {
      parentPort.postMessage({ type: 'failed', file, message: String(e && e.message || e) });
    }
  }
}
const timer = setInterval(checkpointAll, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m.type === 'watch' && !open.has(m.file)) {
    try { open.set(m.file, new Database(m.file, { fileMustExist: true })); }
    catch (e) { parentPort.postMessage({ type: 'failed', file: m.file, message: String(e && e.message || e) }); }
  } else if (m.type === 'forget') {
    open.get(m.file)?.close();
    open.delete(m.file);
  } else if (m.type === 'stop') {
    clearInterval(timer);
    checkpointAll();
    for (const db of open.values()) db.close();
    open.clear();
    parentPort.close();
  }
});
`;

export interface CheckpointReport {
  readonly file: string;
  /** Frames in the log, and how many of them are now in the database file. */
  readonly log: number;
  readonly checkpointed: number;
}

export interface Checkpointer {
  /** Checkpoints the file from now on (the file must exist and be in WAL mode). */
  watch(file: string): void;
  forget(file: string): void;
  /** A last checkpoint of every file, then the worker ends. */
  stop(): Promise<void>;
}

/**
 * One worker for every database file of the process. `onReport` hears each checkpoint that
 * found frames (without one, the worker posts none), `onFailure` each failure (a failure is
 * retried at the next interval).
 */
export function startCheckpointer(
  options: { intervalMs?: number; onReport?: (r: CheckpointReport) => void; onFailure?: (file: string, message: string) => void } = {},
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, intervalMs: options.intervalMs ?? 100, report: options.onReport !== undefined } });
  worker.unref();
  worker.on('message', (m: { type: string; file: string; log: number; checkpointed: number; message: string }) => {
    if (m.type === 'checkpointed') options.onReport?.({ file: m.file, log: m.log, checkpointed: m.checkpointed });
    else if (m.type === 'failed') options.onFailure?.(m.file, m.message);
  });
  // A worker that dies leaves the backstop threshold in charge; nothing is lost.
  worker.on('error', (e) => options.onFailure?.('', e.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped = false;
  return {
    watch: (file) => void (stopped || worker.postMessage({ type: 'watch', file })),
    forget: (file) => void (stopped || worker.postMessage({ type: 'forget', file })),
    async stop() {
      if (!stopped) {
        stopped = true;
        worker.postMessage({ type: 'stop' });
      }
      const timeout = setTimeout(() => void worker.terminate(), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
