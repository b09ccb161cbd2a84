/**
 * The runnable parts of a Markdown page and the output they show (docs/testing.md, "The docs'
 * examples"). Pure: reading, running and comparing are the runner's (doc-runner.ts).
 *
 * - A ```sh block runs, in order with the page's other blocks, in one bash.
 * - Lines starting `# ` (or a lone `#`) right after a command are its output; a command without
 *   them is run and its output not compared. `#` lines before a block's first command are notes.
 * - A block after `<!-- not run: reason -->` is skipped; after `<!-- file: path -->` it is written
 *   to that path (relative to the checkout) before the blocks after it run.
 * - A ```ts block after `<!-- run: tsx -->` runs as a program at the checkout's root, in order
 *   with the other blocks; `// ` lines after a last `// prints:` line are its output.
 */

export type DocBlock =
  | { readonly kind: 'sh'; readonly line: number; readonly steps: readonly Step[] }
  | { readonly kind: 'ts'; readonly line: number; readonly step: Step }
  | { readonly kind: 'file'; readonly line: number; readonly path: string; readonly text: string };

/** One command (or a run of commands with no output shown between them) and the output shown after it. */
export interface Step {
  readonly line: number;
  readonly command: string;
  /** The output lines shown (without `# `), or undefined when none is shown. */
  readonly expected: readonly string[] | undefined;
}

const FENCE = /^```(\S*)\s*$/;
const MARK = /^<!--\s*(not run|file|run):\s*(.*?)\s*-->$/;
/** Shell commands written where no runner looks: a fence other than `sh` holding one. */
const COMMAND_LINE = /^(\$ |curl |npx |npm |node )/;

/** The page's blocks to run, in order; throws naming the line of a block written against the conventions. */
export function docBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let mark: { kind: string; arg: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const m = MARK.exec(text.trim());
    if (m) {
      if (!m[2])
        throw new Error(`line ${i + 1}: <!-- ${m[1]}: ... --> needs a ${m[1] === 'file' ? 'path' : m[1] === 'run' ? 'runner' : 'reason'}`);
      if (m[1] === 'run' && m[2] !== 'tsx') throw new Error(`line ${i + 1}: <!-- run: ${m[2]} -->: the only runner is tsx`);
      mark = { kind: m[1]!, arg: m[2], line: i + 1 };
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) {
      if (text.trim() !== '') mark = undefined; // a mark holds only for the block right after it
      continue;
    }
    const start = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`line ${start}: a block that is never closed`);
    const lang = fence[1];
    if (mark?.kind === 'file') blocks.push({ kind: 'file', line: start, path: mark.arg, text: body.join('\n') + '\n' });
    else if (mark?.kind === 'run') {
      if (lang !== 'ts') throw new Error(`line ${start}: <!-- run: tsx --> marks a \`ts\` block, not a \`${lang || 'plain'}\` one`);
      blocks.push({ kind: 'ts', line: start, step: programOf(body, start + 1) });
    } else if (lang === 'sh' && mark?.kind !== 'not run') blocks.push({ kind: 'sh', line: start, steps: stepsOf(body, start + 1) });
    else if (lang !== 'sh' && lang !== 'ts' && body.some((l) => COMMAND_LINE.test(l)))
      throw new Error(`line ${start}: a \`${lang || 'plain'}\` block holds a command: write commands in \`sh\` blocks`);
    mark = undefined;
  }
  return blocks;
}

/** A program and the output its `// prints:` lines show, if any. */
export function programOf(body: readonly string[], first: number): Step {
  const at = body.lastIndexOf('// prints:');
  if (at < 0) return { line: first, command: body.join('\n'), expected: undefined };
  const shown = body.slice(at + 1);
  const bad = shown.findIndex((l) => l !== '//' && !l.startsWith('// '));
  if (bad >= 0) throw new Error(`line ${first + at + 1 + bad}: after \`// prints:\` only \`// \` output lines`);
  return { line: first, command: body.slice(0, at).join('\n'), expected: shown.map((l) => l.slice(3)) };
}

const isOutput = (line: string) => line === '#' || line.startsWith('# ');

/** The steps of a `sh` block whose first line is line `first` of the page. */
export function stepsOf(body: readonly string[], first: number): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < body.length && (isOutput(body[i]!) || body[i]!.trim() === '')) i++; // notes before the first command
  while (i < body.length) {
    const line = first + i;
    const command: string[] = [];
    while (i < body.length && !isOutput(body[i]!)) command.push(body[i++]!);
    const shown: string[] = [];
    while (i < body.length && isOutput(body[i]!)) shown.push(body[i++]!.slice(2));
    steps.push({ line, command: command.join('\n'), expected: shown.length > 0 ? shown : undefined });
  }
  return steps;
}

/**
 * Values that differ from run to run, each replaced by a name, in what a page shows and in what a
 * command printed alike: the page may show real values.
 */
const VOLATILE: readonly [RegExp, string][] = [
  [/\x1b\[[0-9;]*m/g, ''],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<timestamp>'],
  [/\b\d{4}-\d\d-\d\d\b/g, '<date>'],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<token>'],
  [/\bmrs_[A-Za-z0-9]{16}_[A-Za-z0-9]{20,}/g, '<api-key>'],
  [/\bmrsr\.[a-z0-9_]+\.[a-z0-9_]+\.[A-Za-z0-9]{43}\b/g, '<refresh-token>'],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, '<webhook-secret>'],
  [/\bwh_[\w-]{16}(?![\w-])/g, '<webhook-id>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>'],
  [/(\$cursor=)[\w-]+/g, '$1<cursor>'],
  [/^(x-cursor: )\S+/gim, '$1<cursor>'],
  [/^(date: ).*$/gim, '$1<date>'],
  [/^((?:x-ratelimit-reset|retry-after|webhook-timestamp): )\d+/gim, '$1<seconds>'],
  [/(;t=)\d+/g, '$1<seconds>'],
  [/\bv1,[A-Za-z0-9+/=]{40,}/g, 'v1,<signature>'],
];

/** A line as compared: volatile values named, and runs of spaces (a column's padding) one space. */
export const normalize = (line: string): string =>
  VOLATILE.reduce((s, [re, to]) => s.replace(re, to), line)
    .replace(/ {2,}/g, ' ')
    .trimEnd();

/** A shown line as a test of one printed line: `...` stands for any text. */
function lineTest(shown: string): RegExp {
  const parts = normalize(shown)
    .split('...')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/**
 * Whether the lines printed are the lines shown: each shown line tests one printed line, and a
 * shown line that is only `...` stands for any number of lines (none too).
 */
export function outputMatches(shown: readonly string[], printed: readonly string[]): boolean {
  const tests = shown.map((l) => (l.trim() === '...' ? undefined : lineTest(l)));
  const got = printed.map(normalize);
  const memo = new Map<number, boolean>();
  const from = (s: number, p: number): boolean => {
    const key = s * (got.length + 1) + p;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let ok: boolean;
    if (s === tests.length) ok = p === got.length;
    else if (tests[s] === undefined) ok = from(s + 1, p) || (p < got.length && from(s, p + 1));
    else ok = p < got.length && tests[s]!.test(got[p]!) && from(s + 1, p + 1);
    memo.set(key, ok);
    return ok;
  };
  return from(0, 0);
}

/** What a command printed as lines to compare: carriage returns dropped, blank lines at its end too. */
export function printedLines(output: string): string[] {
  const lines = output.replace(/\r/g, '').split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}
