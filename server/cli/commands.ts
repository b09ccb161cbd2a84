import { loadConfig } from '../config.ts';
import { listen } from '../node-server.ts';
import { seedWorkOrders } from '../seed.ts';
import { createService, ensureDemoTenant, type Service } from '../service.ts';
import { checkClientDb, TenantExistsError } from '../tenants/index.ts';
import { CommandError, parse, UsageError } from './args.ts';
import { progressBar } from './progress.ts';

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(argv: string[]): Promise<void>;
}

const clientDbArg = (v: string | undefined) => {
  try {
    return checkClientDb(v);
  } catch {
    throw new UsageError(`client_db must be <client>.<schema>, each part 1 to 63 of a-z, 0-9, _ (got "${v}")`);
  }
};

async function withService<T>(fn: (s: Service) => Promise<T>): Promise<T> {
  const service = await createService(loadConfig());
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

/** Runs a command body after parsing, or prints its help. */
const command = (
  usage: string,
  summary: string,
  options: Parameters<typeof parse>[1],
  positionals: string[],
  body: (values: Record<string, string | boolean | undefined>, args: string[]) => Promise<void>,
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

export const COMMANDS: Record<string, Command> = {
  serve: command('serve', 'Serve the API (HOST, PORT, DATABASE_URL, ... from the environment); creates demo.main when absent.', {}, [], async () => {
    const service = await createService(loadConfig());
    if (await ensureDemoTenant(service.tenants)) console.error('created tenant demo.main');
    for (const t of await service.tenants.list()) await service.tenants.get(t); // migrate every tenant at start
    const l = await listen(service);
    const scheme = 'http';
    console.error(`mrs serving ${scheme}://${service.config.host}:${l.port}${service.engine.basePath}/maintenance`);
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await l.stop();
      process.exit(0);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  }),
  migrate: command('migrate', 'Create or update the tables of every tenant to match the resource definitions.', {}, [], async () =>
    withService(async (s) => {
      const tenants = await s.tenants.list();
      for (const t of tenants) {
        await s.tenants.get(t);
        console.error(`migrated ${t}`);
      }
      if (tenants.length === 0) console.error('no tenants yet: mrs tenant create <client_db>');
    }),
  ),
  'tenant create': command('tenant create <client_db>', 'Create a tenant with its tables.', {}, ['client_db'], async (_v, [db]) => {
    const clientDb = clientDbArg(db);
    await withService(async (s) => {
      try {
        await s.tenants.create(clientDb);
      } catch (e) {
        if (e instanceof TenantExistsError) throw new CommandError(e.message);
        throw e;
      }
      console.error(`created tenant ${clientDb}`);
    });
  }),
  seed: command(
    'seed <client_db> --work-orders N',
    'Insert N demo work orders into a tenant, with a progress bar.',
    { 'work-orders': { type: 'string' } },
    ['client_db'],
    async (values, [db]) => {
      const clientDb = clientDbArg(db);
      const raw = values['work-orders'];
      const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) throw new UsageError('--work-orders must be a whole number from 1');
      await withService(async (s) => {
        const tenant = await s.tenants.get(clientDb);
        if (!tenant) throw new CommandError(`tenant ${clientDb} does not exist: mrs tenant create ${clientDb}`);
        const bar = progressBar(n, 'seeding work_orders');
        await seedWorkOrders(tenant, s.engine.registry, n, (d) => bar.update(d));
        bar.done();
      });
    },
  ),
};
