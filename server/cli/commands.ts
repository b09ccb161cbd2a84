import { loadConfig, migrationConfig } from '../config.ts';
import { createLogger } from '../logging.ts';
import { listen } from '../node-server.ts';
import { seedWorkOrders } from '../seed.ts';
import { createService, DEMO_ADMIN, DEMO_TENANT, ensureDemoTenant } from '../service.ts';
import { TenantExistsError } from '../tenants/index.ts';
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import { CommandError, UsageError } from './args.ts';
import { clientDbArg, command, withService, type Command } from './command.ts';
import { progressBar } from './progress.ts';

export type { Command } from './command.ts';

export const COMMANDS: Record<string, Command> = {
  serve: command('serve', 'Serve the API (HOST, PORT, DATABASE_URL, ... from the environment); creates tenant demo.main with user admin when absent.', {}, [], async () => {
    const config = loadConfig();
    const logger = createLogger(config.logLevel);
    const service = await createService(config, { logger, onUnexpectedError: (err) => logger.error({ err }, 'unexpected error') });
    const demo = await ensureDemoTenant(service.tenants);
    if (demo.createdTenant) console.error(`created tenant ${DEMO_TENANT}`);
    if (demo.createdAdmin)
      console.error(`created user ${DEMO_ADMIN} (role admin) in ${DEMO_TENANT}; make an API key: npx mrs key create ${DEMO_TENANT} ${DEMO_ADMIN}`);
    for (const t of await service.tenants.list()) await service.tenants.get(t); // migrate every tenant at start
    const l = await listen(service);
    console.error(`mrs serving ${l.scheme}://${service.config.host}:${l.port}${service.engine.basePath}/maintenance`);
    let stopping = false;
    // SIGTERM: stop accepting, finish in-flight requests, close the databases, exit 0.
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping: finishing in-flight requests');
      await l.stop();
      logger.info('stopped');
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
    }, migrationConfig(loadConfig())),
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
  ...ACCOUNT_COMMANDS,
};
