/**
 * An error a database layer marks `transient: true`: the statement failed for a reason that is
 * gone now (its connection pool changed how it sends statements), and the transaction it was in
 * was rolled back, so the whole request may run once more.
 */
export const isTransient = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { transient?: unknown }).transient === true;

/** Runs `run`, and once more when it failed with a transient error. */
export async function retryTransientOnce<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isTransient(e)) throw e;
    return run();
  }
}
