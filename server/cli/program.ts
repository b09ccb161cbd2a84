import { Command as Commander, Help, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import type { Values } from './args.ts';
import { argUsage, type Command } from './command.ts';
import { COMMANDS } from './commands.ts';

/**
 * What each group of commands is about, for `mrs --help` and `mrs <group> --help`; the group's
 * commands are listed after it from COMMANDS, so a new one is never left out.
 */
const GROUPS: Record<string, string> = {
  tenant: 'Tenants: one database (SQLite file or PostgreSQL schema) each',
  user: 'Users of a tenant',
  role: 'Roles of a tenant: what their users may do to which collections',
  key: 'API keys of a user',
  webhook: 'Webhooks of a tenant: deliver its change feed to URLs',
  files: "Attached files' stored bytes",
};

/** A group's description with its commands: `Users of a tenant (create, list, disable, enable).` */
const groupDescription = (group: string) => {
  const subs = Object.keys(COMMANDS)
    .filter((n) => n.startsWith(`${group} `))
    .map((n) => n.slice(group.length + 1));
  return `${GROUPS[group] ?? group} (${subs.join(', ')}).`;
};

/** Help is wrapped to this many columns, or to the terminal when it is narrower. */
export const HELP_WIDTH = 80;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

function addCommand(parent: Commander, name: string, spec: Command): void {
  const cmd = parent.command(name).description(spec.summary).usage(spec.synopsis);
  for (const a of spec.args) cmd.argument(argUsage(a));
  for (const o of spec.options)
    cmd.addOption(o.repeatable ? new Option(o.flags, o.description).argParser(collect) : new Option(o.flags, o.description));
  // A variadic argument arrives as a list: the command sees every argument in one flat list.
  cmd.action((...received: unknown[]) =>
    spec.run(
      (received.slice(0, spec.args.length) as (string | string[] | undefined)[]).flat().filter((a) => a !== undefined),
      received[spec.args.length] as Values,
    ),
  );
}

/** Titles in lower case (`usage: mrs ...`), as the hand-written help printed them and tools like git do. */
class MrsHelp extends Help {
  override styleTitle(str: string): string {
    return str.toLowerCase();
  }
}

/** Commander's documented way to give every command of a program the same help. */
class MrsCommand extends Commander {
  override createCommand(name?: string): MrsCommand {
    return new MrsCommand(name);
  }
  override createHelp(): Help {
    return Object.assign(new MrsHelp(), this.configureHelp());
  }
}

/**
 * The `mrs` program: commander parses, answers `--help` and `--version`, and suggests the nearest
 * command or option for a mistyped one. Every command is made from the COMMANDS table, so the
 * help and the code come from one place. Settings are made on the root before any command is
 * added: commander copies them to each command as it is made.
 */
export function buildProgram(): Commander {
  const root = new MrsCommand('mrs')
    .usage('<command> [options]')
    .description('Administer and serve maintenance-records. Settings come from the environment (see docs/configuration.md).')
    .version(packageJson.version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .helpCommand('help [command]', 'print help for a command')
    // A narrow description column still wraps (commander's default leaves it unwrapped below 40).
    .configureHelp({ helpWidth: Math.min(HELP_WIDTH, process.stdout.columns || HELP_WIDTH), minWidthToWrap: 20 })
    .showSuggestionAfterError(true)
    // main() prints commander's mistakes itself, as one line.
    .configureOutput({ outputError: () => {} })
    .exitOverride();
  const groups = new Map<string, Commander>();
  for (const [name, spec] of Object.entries(COMMANDS)) {
    const [group, sub] = name.split(' ') as [string, string | undefined];
    if (sub === undefined) {
      addCommand(root, name, spec);
      continue;
    }
    let parent = groups.get(group);
    if (!parent)
      groups.set(
        group,
        (parent = root.command(group).description(groupDescription(group)).usage('<command> [options]').helpCommand(false)),
      );
    addCommand(parent, sub, spec);
  }
  const every = Object.values(COMMANDS).map((c) => `  mrs ${c.usage}`);
  root.addHelpText('after', `\nevery command (mrs <command> --help for one):\n${every.join('\n')}\n`);
  return root;
}
