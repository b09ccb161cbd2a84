/** A one-line progress bar on stderr (stdout stays clean for output meant for scripts). */
export function progressBar(total: number, label: string) {
  const width = 30;
  const tty = process.stderr.isTTY;
  let last = -1;
  return {
    update(done: number) {
      const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
      if (pct === last) return;
      last = pct;
      const filled = Math.round((pct / 100) * width);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}% ${done}/${total}`;
      if (tty) process.stderr.write(`\r${line}`);
      else if (pct % 10 === 0) process.stderr.write(`${line}\n`);
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}
