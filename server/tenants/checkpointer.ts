import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { workerSource, type FromWorker, type ToWorker, type WorkerData } from './checkpoint-worker.ts';

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
  const workerData: WorkerData = { driver, intervalMs: options.intervalMs ?? 100, report: options.onReport !== undefined };
  const worker = new Worker(workerSource(), { eval: true, workerData });
  worker.unref();
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'checkpointed') options.onReport?.({ file: m.file, log: m.log, checkpointed: m.checkpointed });
    else options.onFailure?.(m.file, m.message);
  });
  const tell = (m: ToWorker) => worker.postMessage(m);
  // A worker that dies leaves the backstop threshold in charge; nothing is lost.
  worker.on('error', (e) => options.onFailure?.('', e.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped = false;
  return {
    watch: (file) => void (stopped || tell({ type: 'watch', file })),
    forget: (file) => void (stopped || tell({ type: 'forget', file })),
    async stop() {
      if (!stopped) {
        stopped = true;
        tell({ type: 'stop' });
      }
      const timeout = setTimeout(() => void worker.terminate(), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
