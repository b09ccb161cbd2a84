import { loadConfig, migrationConfig } from '../config.ts';
import { migrateTenants } from '../migrate-tenants.ts';
import { createService } from '../service.ts';
import { seedWorkOrders } from '../seed.ts';
import { TenantExistsError } from '../tenants/index.ts';
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import { CommandError, UsageError } from './args.ts';
import { clientDbArg, command, withService, withTenant, type Command } from './command.ts';
import { progressBar } from './progress.ts';
import { serve } from './serve.ts';
import { table } from './table.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';

export type { Command } from './command.ts';

/** Every command of `mrs` by name; a name with a space is a command of a group (`tenant create`). */
export const COMMANDS: Record<string, Command> = {
  serve: command(
    'serve',
    'Serve the API, configured from the environment (PORT, HOST, DATABASE_URL, ...: see the README). Creates tenant demo.main with user admin when absent.',
    {},
    serve,
  ),
  migrate: command(
    'migrate',
    "Bring every tenant's tables up to the resource definitions, or refuse (changing no tenant) where data would be lost or hidden.",
    { options: [{ flags: '--dry-run', description: 'print the plan per tenant and resource and change nothing' }] },
    async (_args, values) => {
      // DDL on MIGRATE_DATABASE_URL when set: a direct connection, not the pooler.
      const service = await createService(migrationConfig(loadConfig()), { migrateOnOpen: false });
      try {
        const out = (text: string) => process.stdout.write(`${text}\n`);
        const dryRun = values['dryRun'] === true;
        const refusals = await migrateTenants(service, { dryRun, out, progress: (line) => console.error(line) });
        if (refusals.length > 0)
          throw new CommandError(`${dryRun ? 'would refuse' : 'refused, no tenant changed'}:\n${refusals.join('\n')}`);
        if ((await service.tenants.list()).length === 0) console.error('no tenants yet: mrs tenant create <client_db>');
      } finally {
        await service.close();
      }
    },
  ),
  seed: command(
    'seed',
    'Insert N demo work orders into a tenant, showing progress on stderr.',
    {
      args: ['client_db'],
      options: [{ flags: '--work-orders <N>', description: 'how many work orders to insert (1 or more)', required: true }],
    },
    async ([db], values) => {
      const clientDb = clientDbArg(db);
      const raw = values['workOrders'];
      const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) throw new UsageError('--work-orders must be a whole number from 1');
      await withTenant(clientDb, async (tenant, s) => {
        const bar = progressBar(n, 'seeding work_orders');
        await seedWorkOrders(tenant, s.engine.registry, n, (d) => bar.update(d));
        bar.done();
      });
    },
  ),
  'tenant create': command('tenant create', 'Create a tenant with its tables.', { args: ['client_db'] }, async ([db]) => {
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
  'tenant list': command('tenant list', 'List the tenants (client_db names).', {}, async () => {
    const tenants = await withService((s) => s.tenants.list());
    process.stdout.write(
      table(
        ['CLIENT_DB'],
        [...tenants].sort().map((t) => [t]),
      ),
    );
  }),
  ...ACCOUNT_COMMANDS,
  ...WEBHOOK_COMMANDS,
};
