import type { TenantDb } from '../../engine/dialects/types.ts';
import { loadConfig, type Config } from '../config.ts';
import { createService, type Service } from '../service.ts';
import { checkClientDb, usingLease } from '../tenants/index.ts';
import { CommandError, UsageError, type Values } from './args.ts';

export interface OptionSpec {
  /** Commander's form: `--role <role>`. */
  readonly flags: string;
  readonly description: string;
  /** Given once or more, collected into a list. */
  readonly repeatable?: boolean;
  /** Shown as required in the usage line; the command body checks it, with a message of its own. */
  readonly required?: boolean;
}

/** One command of `mrs`, described as data; program.ts turns the table into commander commands. */
export interface Command {
  /** `user create <client_db> <username> --role <role>...`: what follows `mrs`. */
  readonly usage: string;
  /** The arguments and options part of the usage: `<client_db> <username> --role <role>...`. */
  readonly synopsis: string;
  readonly summary: string;
  readonly args: readonly string[];
  readonly options: readonly OptionSpec[];
  run(args: string[], values: Values): Promise<void>;
}

/** An argument's usage: `client_db` is required (`<client_db>`), `[client_db...]` is written as meant; `...` takes several. */
export const argUsage = (a: string) => (a.startsWith('[') ? a : `<${a}>`);

export function command(
  name: string,
  summary: string,
  spec: { args?: readonly string[]; options?: readonly OptionSpec[] },
  run: Command['run'],
): Command {
  const args = spec.args ?? [];
  const options = spec.options ?? [];
  const optionUsage = (o: OptionSpec) => `${o.flags}${o.repeatable ? '...' : ''}`;
  const synopsis = [
    ...args.map(argUsage),
    ...options.filter((o) => o.required).map(optionUsage),
    ...options.filter((o) => !o.required).map((o) => `[${optionUsage(o)}]`),
  ].join(' ');
  return { usage: `${name} ${synopsis}`.trim(), synopsis, summary, args, options, run };
}

export const clientDbArg = (v: string | undefined) => {
  try {
    return checkClientDb(v);
  } catch {
    throw new UsageError(`client_db must be <client>.<schema>, each part 1 to 63 of a-z, 0-9, _ (got "${v}")`);
  }
};

/** Every name checked before any is used (a bad one is a usage mistake, nothing done), each once, in order given. */
export const tenantNames = (names: readonly string[]): string[] => [...new Set(names.map(clientDbArg))];

/** The names of a file: one per line; blank lines and `#` comments skipped. */
export const namesInFile = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');

export async function withService<T>(fn: (s: Service) => Promise<T>, config: Config = loadConfig()): Promise<T> {
  const service = await createService(config);
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

/** Runs `fn` on an existing tenant; a missing one is a refused action (exit 1). */
export const withTenant = <T>(clientDb: string, fn: (t: TenantDb, s: Service) => Promise<T>): Promise<T> =>
  withService(async (s) => {
    // Leased: a long seed or import is never closed as idle.
    return usingLease(s.tenants, clientDb, (tenant) => {
      if (!tenant) throw new CommandError(`tenant ${clientDb} does not exist: mrs tenant create ${clientDb}`);
      return fn(tenant, s);
    });
  });
