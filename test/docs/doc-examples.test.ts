import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outputMatches } from '../support/doc-blocks.ts';
import { DocCheckout, runDoc } from '../support/doc-runner.ts';

const ROOT = join(import.meta.dirname, '../..');

/** The README, then every page under docs/ (docs/testing.md, "The docs' examples"). */
const PAGES = [
  'README.md',
  ...(existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')) : [])
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

describe('every command of the README and docs/ runs as written, in order, and prints what the page shows', () => {
  const checkout = new DocCheckout(ROOT);
  afterAll(() => checkout.remove());

  it.each(PAGES)(
    '%s',
    async (page) => {
      const run = await runDoc(checkout, page);
      const problems: string[] = [];
      for (const { step, printed } of run.steps) {
        const where = `${page}:${step.line}: ${step.command.split('\n')[0]}`;
        if (printed === undefined) {
          problems.push(`${where}\n  never ran (the page's run ended, exit ${run.exit})`);
          break;
        }
        const failed = printed.find((l) => /^\(exit \d+\)$/.test(l));
        if (step.expected === undefined ? failed !== undefined : !outputMatches(step.expected, printed)) {
          const shown = step.expected ? step.expected.map((l) => `  # ${l}`).join('\n') : '  (nothing shown)';
          problems.push(`${where}\n shows:\n${shown}\n printed:\n${printed.map((l) => `  # ${l}`).join('\n')}`);
        }
      }
      const context =
        problems.length > 0 ? `\n--- before the first step:\n${run.preamble}\n--- the server's output:\n${run.serverLog}` : '';
      expect(problems.join('\n\n') + context).toBe('');
    },
    180_000,
  );
});
