import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outputMatches } from '../support/doc-blocks.ts';
import { DocCheckouts, runDoc, type DocRun } from '../support/doc-runner.ts';

const ROOT = join(import.meta.dirname, '../..');

/** The README, then every page under docs/ (docs/testing.md, "The docs' examples"). */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Runs at most `n` of the functions given at a time. */
function slots(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (f) => {
    if (free === 0) await new Promise<void>((r) => waiting.push(r));
    else free--;
    try {
      return await f();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/** Each step that printed other than the page shows, with both, as the page would show them. */
function problemsOf(page: string, run: DocRun): string[] {
  const problems: string[] = [];
  for (const { step, printed } of run.steps) {
    const where = `${page}:${step.line}: ${step.command.split('\n')[0]}`;
    if (printed === undefined) {
      problems.push(`${where}\n  never ran (the page's run ended, exit ${run.exit})`);
      break;
    }
    const failed = printed.some((l) => /^\(exit \d+\)$/.test(l));
    if (step.expected === undefined ? failed : !outputMatches(step.expected, printed)) {
      const shown = step.expected ? step.expected.map((l) => `  # ${l}`).join('\n') : '  (nothing shown)';
      problems.push(`${where}\n shows:\n${shown}\n printed:\n${printed.map((l) => `  # ${l}`).join('\n')}`);
    }
  }
  return problems;
}

describe('every command of the README and docs/ runs as written, in order, and prints what the page shows', () => {
  const checkouts = new DocCheckouts(ROOT);
  afterAll(() => checkouts.remove());
  // Two pages at a time: much of a page's time is waiting (servers starting, streams, webhooks).
  const turn = slots(2);

  it.concurrent.each(PAGES)(
    '%s',
    async (page) => {
      const run = await turn(() => runDoc(checkouts, page));
      const problems = problemsOf(page, run);
      const context =
        problems.length > 0 ? `\n--- before the first step:\n${run.preamble}\n--- the server's output:\n${run.serverLog}` : '';
      expect(problems.join('\n\n') + context).toBe('');
    },
    1_200_000,
  );
});
