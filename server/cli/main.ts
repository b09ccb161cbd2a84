import { CommanderError, type Command as Commander } from 'commander';
import { CommandError, UsageError } from './args.ts';
import { buildProgram } from './program.ts';

/** Commander's exits that are answers, not mistakes: help asked for, the version. */
const ANSWERED = new Set(['commander.helpDisplayed', 'commander.version']);

const oneLine = (text: string) =>
  text
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\(Did you mean/, '(did you mean')
    .trim();

const pathOf = (cmd: Commander): string => (cmd.parent ? `${pathOf(cmd.parent)} ${cmd.name()}` : cmd.name());

/** The deepest command the arguments name (`tenant create` in `tenant create a.b extra`). */
function named(program: Commander, argv: string[]): Commander {
  let cmd = program;
  for (const word of argv) {
    const sub = cmd.commands.find((c) => c.name() === word);
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

const usageOf = (cmd: Commander) => `${pathOf(cmd)} ${cmd.usage()}`.trim();

/**
 * Runs `mrs` with the arguments after it and returns the exit code: 0 done, 2 a usage mistake
 * (one line on stderr, with the nearest command or option when one is close), 1 a refused
 * action or a failure (one line on stderr).
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  const running = named(program, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    const where = pathOf(running);
    if (e instanceof CommanderError) {
      if (ANSWERED.has(e.code)) return 0;
      // `mrs help`: 0. `mrs` or `mrs <group>` alone: commander printed the help on stderr; a usage mistake.
      if (e.code === 'commander.help') return e.exitCode === 0 ? 0 : 2;
      const hint = running === program || e.code === 'commander.unknownCommand' ? `run ${where} --help` : `usage: ${usageOf(running)}`;
      process.stderr.write(`${where}: ${oneLine(e.message)} (${hint})\n`);
      return 2;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`${where}: ${e.message} (usage: ${usageOf(running)})\n`);
      return 2;
    }
    // A refused action says all it refuses, a line each (a migration's refusals: SPEC 12).
    if (e instanceof CommandError) {
      process.stderr.write(`${where}: ${e.message}\n`);
      return 1;
    }
    // A bad setting (ConfigError) or a failure: its first line.
    process.stderr.write(`${where}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}\n`);
    return 1;
  }
}
