import { ConfigError } from '../config.ts';
import { CommandError, UsageError } from './args.ts';
import { COMMANDS } from './commands.ts';

function help(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  return `usage: mrs <command> [options]   (mrs <command> --help for one command)\n\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)
    .join('\n')}\n`;
}

/** Finds the longest command name that prefixes the arguments (`tenant create ...`). */
function find(argv: string[]): { name: string; rest: string[] } | undefined {
  for (let n = Math.min(2, argv.length); n >= 1; n--) {
    const name = argv.slice(0, n).join(' ');
    if (COMMANDS[name]) return { name, rest: argv.slice(n) };
  }
  return undefined;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(help());
    return argv.length === 0 ? 2 : 0;
  }
  const found = find(argv);
  if (!found) {
    process.stderr.write(`mrs: unknown command "${argv.slice(0, 2).join(' ')}"; run mrs --help\n`);
    return 2;
  }
  try {
    await COMMANDS[found.name]!.run(found.rest);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`mrs ${found.name}: ${e.message} (usage: mrs ${COMMANDS[found.name]!.usage})\n`);
      return 2;
    }
    if (e instanceof CommandError || e instanceof ConfigError) {
      process.stderr.write(`mrs ${found.name}: ${e.message}\n`);
      return 1;
    }
    process.stderr.write(`mrs ${found.name}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
