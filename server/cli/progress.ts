/**
 * Progress of long work on stderr (stdout stays clean for output meant for scripts). On a
 * terminal: one line redrawn in place, cut to the terminal's width so it never wraps; otherwise
 * (a log file, CI): a plain line at every tenth, no carriage returns. Then one summary line.
 */

export interface Progress {
  readonly label: string;
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
}

/** Terminals wrap a line that fills the last column on some emulators: stay one short of it. */
const MARGIN = 1;
const MIN_BAR = 5;

export function formatDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

export function formatRate(done: number, ms: number): string {
  const perS = ms > 0 ? (done * 1000) / ms : 0;
  if (perS >= 10_000) return `${Math.round(perS / 1000)}k/s`;
  return `${Math.round(perS)}/s`;
}

const percent = (p: Progress) => (p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100));
const figures = (p: Progress) => `${percent(p)}% ${p.done}/${p.total} ${formatDuration(p.elapsedMs)} ${formatRate(p.done, p.elapsedMs)}`;

/** The terminal line: label, bar, percent, counts, elapsed, rate; the bar shrinks, then goes, then the label is cut. */
export function terminalLine(p: Progress, columns: number): string {
  const room = Math.max(1, columns - MARGIN);
  const tail = figures(p);
  const barRoom = room - p.label.length - tail.length - 4; // spaces and brackets
  if (barRoom >= MIN_BAR) {
    const width = Math.min(barRoom, 30);
    const filled = Math.round((percent(p) / 100) * width);
    return `${p.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${tail}`;
  }
  const plain = `${p.label} ${tail}`;
  return plain.length <= room ? plain : tail.length <= room ? tail : tail.slice(0, room);
}

/** A line for a log: no bar, nothing redrawn. */
export const plainLine = (p: Progress) => `${p.label}: ${figures(p)}`;

export const summaryLine = (p: Progress) =>
  `${p.label}: done, ${p.done} in ${formatDuration(p.elapsedMs)} (${formatRate(p.done, p.elapsedMs)})`;

export interface ProgressOutput {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/** Redraws at most this often on a terminal. */
const REDRAW_MS = 100;

export function progressBar(
  total: number,
  label: string,
  out: ProgressOutput = process.stderr,
  clock: () => number = () => performance.now(),
) {
  const started = clock();
  const tty = out.isTTY === true;
  let lastDraw = -Infinity;
  let lastTenth = 0;
  let done = 0;
  const state = (): Progress => ({ label, done, total, elapsedMs: clock() - started });
  let drawn = false;
  return {
    update(n: number) {
      done = n;
      drawn = true;
      const now = clock();
      if (tty) {
        if (now - lastDraw < REDRAW_MS && n < total) return;
        lastDraw = now;
        out.write(`\r\x1b[K${terminalLine(state(), out.columns || 80)}`);
        return;
      }
      const tenth = total === 0 ? 10 : Math.floor((n / total) * 10);
      if (tenth <= lastTenth || tenth >= 10) return; // the summary stands for 100%
      lastTenth = tenth;
      out.write(`${plainLine(state())}\n`);
    },
    /** A line of its own: on a terminal above the bar, which is drawn again under it. */
    log(line: string) {
      if (!tty || !drawn) return void out.write(`${line}\n`);
      out.write(`\r\x1b[K${line}\n${terminalLine(state(), out.columns || 80)}`);
    },
    done() {
      out.write(`${tty ? '\r\x1b[K' : ''}${summaryLine(state())}\n`);
    },
  };
}
