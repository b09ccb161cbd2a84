/** How long a write waits for another connection's write lock: SQLite's usual busy timeout. */
const BUSY_WAIT_MS = 5000;

/**
 * Takes the file's write lock with `begin` (a `begin immediate`). Another connection (another
 * process, or another service in this one) may hold it for its own group: wait for it without
 * blocking the event loop, which SQLite's busy timeout would do (and, in one process, would keep
 * the holder from committing).
 */
export async function takeWriteLock(begin: () => void): Promise<void> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(2 * wait, 50)) {
    try {
      begin();
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw e;
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}
