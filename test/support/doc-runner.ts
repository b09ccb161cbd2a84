import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { docBlocks, printedLines, type Step } from './doc-blocks.ts';

/** What a fresh clone holds besides its tracked files: never copied into the run's checkout. */
const NOT_CLONED = new Set(['node_modules', '.git', 'data', 'dist', '.bench-data', '.scratch']);

/**
 * Fresh checkouts of `root`, as a clone after `npm install` would be: root's files copied (with
 * their times) and no data, and a node_modules whose packages link to root's. Their `mrs`
 * builds share one cache of their own (`mrs` keeps a build per set of definitions, so checkouts
 * whose definitions are the same compile once), kept beside links to the same packages so that
 * a build finds them.
 */
export class DocCheckouts {
  private readonly shared = mkdtempSync(join(tmpdir(), 'mrs-docs-'));
  private readonly packages: readonly string[];

  constructor(readonly root: string) {
    this.packages = readdirSync(join(root, 'node_modules')).filter((name) => name !== '.cache');
    this.linkPackages(this.shared);
    mkdirSync(join(this.shared, 'node_modules', '.cache'));
  }

  private linkPackages(dir: string): void {
    mkdirSync(join(dir, 'node_modules'));
    for (const name of this.packages) symlinkSync(realpathSync(join(this.root, 'node_modules', name)), join(dir, 'node_modules', name));
  }

  /** A new checkout's folder, and a folder beside it for the run's own files. */
  make(): { dir: string; work: string } {
    const dir = mkdtempSync(join(this.shared, 'checkout-'));
    for (const name of readdirSync(this.root)) {
      if (NOT_CLONED.has(name)) continue;
      cpSync(join(this.root, name), join(dir, name), {
        recursive: true,
        preserveTimestamps: true,
        filter: (from) => !/\.(sqlite(-wal|-shm)?|cpuprofile)$/.test(from),
      });
    }
    this.linkPackages(dir);
    symlinkSync(join(this.shared, 'node_modules', '.cache'), join(dir, 'node_modules', '.cache'));
    return { dir, work: mkdtempSync(join(this.shared, 'work-')) };
  }

  remove(): void {
    rmSync(this.shared, { recursive: true, force: true });
  }
}

/** A port nothing listens on, at random in 20000-29999 (this machine is shared). */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 10000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** The ports the pages name: each replaced by a free one in what runs, and back in what it printed. */
export const PAGE_PORTS = [8080, 8081, 3000, 9000] as const;

/**
 * Bash functions the pages' commands meet before the real ones: `npm start` (re)starts `mrs
 * serve` in the background and prints what it printed until it listens; `npm install` has
 * nothing to do; `npm test` is refused (this runner is part of it); `npx mrs` is `node
 * bin/mrs.js` (what npx finds, without npx's own start).
 */
const PREAMBLE = (start: string) => String.raw`
exec 2>&1
set -o pipefail
__mrs_pid=
__mrs_stop() {
  [ -n "$__mrs_pid" ] || return 0
  kill "$__mrs_pid" 2>/dev/null
  while kill -0 "$__mrs_pid" 2>/dev/null; do sleep 0.05; done
  __mrs_pid=
}
__mrs_serve() {
  __mrs_stop
  : > "$__MRS_ERR"
  # Not a job of this shell: a page's own "wait" waits for its own jobs only.
  ( ${start} >> "$__MRS_LOG" 2>> "$__MRS_ERR" & echo $! > "$__MRS_ERR.pid" )
  __mrs_pid=$(cat "$__MRS_ERR.pid")
  local i
  for i in $(seq 1 400); do
    if grep -q 'API key:' "$__MRS_ERR"; then cat "$__MRS_ERR"; return 0; fi
    if ! kill -0 "$__mrs_pid" 2>/dev/null; then cat "$__MRS_ERR"; __mrs_pid=; return 1; fi
    sleep 0.05
  done
  cat "$__MRS_ERR"; return 1
}
npm() {
  case "$1" in
    install | ci) ;;
    start) __mrs_serve ;;
    test) echo 'npm test: not run by the docs runner (it runs inside npm test)'; return 1 ;;
    *) command npm "$@" ;;
  esac
}
npx() {
  if [ "$1" = mrs ]; then shift; node bin/mrs.js "$@"; else command npx "$@"; fi
}
trap 'trap - ERR; __mrs_stop; jobs -p | xargs -r kill 2>/dev/null' EXIT
trap 'printf "\x1eEXIT %d\x1e\n" $?' ERR
`;

export interface StepRun {
  readonly step: Step;
  /** The lines it printed; undefined when the page's run ended before it. */
  readonly printed: readonly string[] | undefined;
  /** How long it ran, in milliseconds. */
  readonly ms?: number;
}

export interface DocRun {
  readonly steps: readonly StepRun[];
  /** What ran before the first step (the server's start), and the server's warnings and errors: for a failure's message. */
  readonly preamble: string;
  readonly serverLog: string;
  readonly exit: number | null;
}

/**
 * Runs the page's blocks in order in one bash, in a fresh checkout (no data), against `mrs
 * serve` on a free port: started before the first block, unless that block starts with starting
 * it (`npm install` or `npm start`, as the README's does).
 */
export async function runDoc(checkouts: DocCheckouts, page: string, timeoutMs = 300_000): Promise<DocRun> {
  const { root } = checkouts;
  const blocks = docBlocks(readFileSync(join(root, page), 'utf8'));
  if (blocks.length === 0) return { steps: [], preamble: '', serverLog: '', exit: 0 };
  const { dir, work: run } = checkouts.make();
  const ports = new Map<number, number>();
  for (const p of PAGE_PORTS) ports.set(p, await freePort());
  const toRun = (text: string) => text.replace(/\b(8080|8081|3000|9000)\b/g, (p) => String(ports.get(Number(p))));
  const fromRun = (text: string) => [...ports].reduce((s, [page, run]) => s.replace(new RegExp(`\\b${run}\\b`, 'g'), String(page)), text);

  const start = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start as string;
  const steps: Step[] = [];
  let script = PREAMBLE(start);
  const first = blocks[0];
  const startsItself = first?.kind === 'sh' && /^npm (install|start)\b/.test(first.steps[0]?.command ?? '');
  if (!startsItself) script += '__mrs_serve || exit 1\n';
  for (const block of blocks) {
    if (block.kind === 'file') {
      script += `mkdir -p ${JSON.stringify(dirname(block.path))}\ncat > ${JSON.stringify(block.path)} <<'__MRS_DOC_FILE__'\n${toRun(block.text)}__MRS_DOC_FILE__\n`;
      continue;
    }
    if (block.kind === 'ts') {
      // At the checkout's root, so that the package's own entries resolve (to their sources) as a page's relative imports do.
      const file = `.doc-block-${block.line}.ts`;
      script += `printf '\\n\\x1eSTEP %d %s\\x1e\\n' ${steps.length} "$EPOCHREALTIME"\n`;
      script += `cat > ${file} <<'__MRS_DOC_FILE__'\n${toRun(block.step.command)}\n__MRS_DOC_FILE__\n`;
      // Type-checked as the checkout's own code first: tsx alone would run an example that no longer compiles.
      script += `echo '{"extends": "./tsconfig.json", "include": ["${file}"]}' > ${file}.json\n`;
      script += `node node_modules/typescript/bin/tsc -p ${file}.json\nnode --conditions=source --import tsx ${file}\n`;
      steps.push(block.step);
      continue;
    }
    for (const step of block.steps) {
      script += `printf '\\n\\x1eSTEP %d %s\\x1e\\n' ${steps.length} "$EPOCHREALTIME"\n${toRun(step.command)}\n`;
      steps.push(step);
    }
  }
  writeFileSync(join(run, 'page.sh'), script);

  const env: Record<string, string> = {
    LC_NUMERIC: 'C',
    PORT: String(ports.get(8080)),
    __MRS_LOG: join(run, 'mrs.log'),
    __MRS_ERR: join(run, 'mrs.err'),
  };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'USER', 'LANG', 'SHELL']) if (process.env[name]) env[name] = process.env[name]!;
  let output = '';
  const child = spawn('bash', ['--noprofile', '--norc', join(run, 'page.sh')], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => killGroup(child.pid!), timeoutMs);
  const exit = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endedAt = Date.now() / 1000;
  clearTimeout(timer);
  killGroup(child.pid!); // anything a page left running in the background
  let serverLog = '';
  try {
    // Its warnings and errors (a request line is info) and what it printed on stderr.
    const warnings = readFileSync(join(run, 'mrs.log'), 'utf8')
      .split('\n')
      .filter((l) => /"level":[4-6]0/.test(l));
    serverLog = [...warnings.slice(-20), readFileSync(join(run, 'mrs.err'), 'utf8').slice(-2000)].join('\n');
  } catch {
    // no server was started
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(run, { recursive: true, force: true });

  const parts = fromRun(output)
    .replace(/\n*\x1eEXIT (\d+)\x1e\n?/g, '\n(exit $1)\n')
    .split(/\n?\x1eSTEP (\d+) ([\d.]+)\x1e\n/);
  const printed = new Map<number, string>();
  const startedAt = new Map<number, number>();
  for (let i = 1; i < parts.length; i += 3) {
    printed.set(Number(parts[i]), parts[i + 2]!);
    startedAt.set(Number(parts[i]), Number(parts[i + 1]));
  }
  const tookMs = (i: number) => ((startedAt.get(i + 1) ?? endedAt) - startedAt.get(i)!) * 1000;
  return {
    steps: steps.map((step, i) =>
      printed.has(i) ? { step, printed: printedLines(printed.get(i)!), ms: tookMs(i) } : { step, printed: undefined },
    ),
    preamble: parts[0]!,
    serverLog: fromRun(serverLog),
    exit,
  };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
