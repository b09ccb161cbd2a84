import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command-line mistake: printed as one line, exit 2. */
export class UsageError extends Error {}

/** A refused action (e.g. creating what exists): printed as one line, exit 1. */
export class CommandError extends Error {}

/** Parsed options: strings, flags, or lists for `multiple` options. */
export type Values = Record<string, string | boolean | string[] | undefined>;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  positionals: readonly string[],
) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]!);
  }
  const values = parsed.values as Values;
  if (values.help) return { help: true, values, positionals: parsed.positionals };
  if (parsed.positionals.length !== positionals.length)
    throw new UsageError(`expected ${positionals.length ? positionals.map((p) => `<${p}>`).join(' ') : 'no arguments'}`);
  return { help: false, values, positionals: parsed.positionals };
}
