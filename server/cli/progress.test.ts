import { describe, expect, it } from 'vitest';
import { formatDuration, formatRate, plainLine, progressBar, summaryLine, terminalLine, type Progress } from './progress.ts';

const at = (done: number, total = 200_000, elapsedMs = 12_400): Progress => ({ label: 'seeding work_orders', done, total, elapsedMs });

/** Runs a whole bar against a fake stderr and clock: 100 updates, 50 ms apart. */
function run(isTTY: boolean, columns?: number) {
  let written = '';
  let now = 0;
  const bar = progressBar(
    1000,
    'seeding work_orders',
    { isTTY, ...(columns ? { columns } : {}), write: (t: string) => (written += t) },
    () => now,
  );
  for (let d = 10; d <= 1000; d += 10) {
    now += 50;
    bar.update(d);
  }
  bar.done();
  return written;
}

describe('progress lines', () => {
  it.each([50, 80])('fit a terminal %i columns wide (one short of the edge) at every stage', (columns) => {
    for (const done of [0, 1, 99_999, 200_000]) {
      const line = terminalLine(at(done), columns);
      expect(line.length, line).toBeLessThan(columns);
      expect(line).toContain(`${done}/200000`);
      expect(line).toContain('12s');
      expect(line).toMatch(/\d+k?\/s$/);
    }
  });

  it('keep the bar where there is room, and drop it before the figures where there is not', () => {
    expect(terminalLine(at(100_000), 80)).toMatch(/^seeding work_orders \[#+\.+\] 50% 100000\/200000 12s 8065\/s$/);
    expect(terminalLine(at(100_000), 50)).toBe('seeding work_orders 50% 100000/200000 12s 8065/s');
    expect(terminalLine(at(100_000), 30)).toBe('50% 100000/200000 12s 8065/s');
    expect(terminalLine(at(100_000), 10).length).toBe(9);
  });

  it('show elapsed time and rate in short forms', () => {
    expect([formatDuration(400), formatDuration(12_400), formatDuration(125_000)]).toEqual(['0.4s', '12s', '2m05s']);
    expect([formatRate(25, 400), formatRate(200_000, 5_000), formatRate(0, 0)]).toEqual(['63/s', '40k/s', '0/s']);
  });

  it('end with a summary', () => {
    expect(summaryLine(at(200_000))).toBe('seeding work_orders: done, 200000 in 12s (16k/s)');
    expect(plainLine(at(20_000))).toBe('seeding work_orders: 10% 20000/200000 12s 1613/s');
  });
});

describe('progressBar', () => {
  it('on a terminal redraws one line in place, cut to its width, then prints the summary', () => {
    const out = run(true, 50);
    expect(out).toContain('\r');
    const drawn = out.split(/\r\x1b\[K/).filter(Boolean);
    for (const line of drawn) expect(line.replace(/\n$/, '').length, line).toBeLessThan(50);
    expect(drawn.at(-1)).toMatch(/^seeding work_orders: done, 1000 in 5\.0s \(200\/s\)\n$/);
    expect(out.split('\n').filter(Boolean)).toHaveLength(1); // one line on screen, redrawn
  });

  it('elsewhere prints plain lines, one a tenth, with no carriage return, then the summary', () => {
    const out = run(false);
    expect(out).not.toContain('\r');
    expect(out).not.toContain('\x1b');
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('seeding work_orders: 10% 100/1000 0.5s 200/s');
    expect(lines.at(-1)).toBe('seeding work_orders: done, 1000 in 5.0s (200/s)');
  });

  it('prints a line of its own above the bar on a terminal, and as a plain line elsewhere', () => {
    for (const isTTY of [true, false]) {
      let written = '';
      const bar = progressBar(10, 'migrating tenants', { isTTY, columns: 80, write: (t: string) => (written += t) }, () => 0);
      bar.update(1);
      bar.log('migrated a.main: nothing to change');
      bar.done();
      const screen = written.split('\n').map((l) => l.split('\r\x1b[K').at(-1));
      expect(screen).toContain('migrated a.main: nothing to change');
      expect(screen.at(-2)).toMatch(/^migrating tenants: done, 1 in /);
    }
  });
});
