import type { TenantDb } from '../../engine/dialects/types.ts';
import { loadConfig, type Config } from '../config.ts';
import { createService, type Service } from '../service.ts';
import { checkClientDb } from '../tenants/index.ts';
import { CommandError, parse, UsageError, type Values } from './args.ts';

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(argv: string[]): Promise<void>;
}

export const clientDbArg = (v: string | undefined) => {
  try {
    return checkClientDb(v);
  } catch {
    throw new UsageError(`client_db must be <client>.<schema>, each part 1 to 63 of a-z, 0-9, _ (got "${v}")`);
  }
};

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
    const tenant = await s.tenants.get(clientDb);
    if (!tenant) throw new CommandError(`tenant ${clientDb} does not exist: mrs tenant create ${clientDb}`);
    return fn(tenant, s);
  });

/** Runs a command body after parsing, or prints its help. */
export const command = (
  usage: string,
  summary: string,
  options: Parameters<typeof parse>[1],
  positionals: string[],
  body: (values: Values, args: string[]) => Promise<void>,
): Command => ({
  usage,
  summary,
  async run(argv) {
    const p = parse(argv, options, positionals);
    if (p.help) {
      process.stdout.write(`usage: mrs ${usage}\n\n${summary}\n`);
      return;
    }
    await body(p.values, p.positionals);
  },
});
