import { readFileSync } from 'node:fs';
import { loadConfig, migrationConfig } from '../config.ts';
import { eachLimited, migrateTenants } from '../migrate-tenants.ts';
import { olderServersNote, openRoster } from '../roster.ts';
import { createService } from '../service.ts';
import { seedWorkOrders } from '../seed.ts';
import { TenantExistsError } from '../tenants/index.ts';
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import { STEP_COMMANDS } from './step-commands.ts';
import { CommandError, UsageError } from './args.ts';
import { clientDbArg, command, namesInFile, tenantNames, withService, withTenant, type Command } from './command.ts';
import { formatDuration, progressBar } from './progress.ts';
import { serve } from './serve.ts';
import { table } from './table.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';
import { FILE_COMMANDS } from './file-commands.ts';
import { CLIENT_COMMANDS } from './client-commands.ts';

export type { Command } from './command.ts';

/** A whole number from 1 to `max` given to an option. */
const countArg = (flag: string, raw: unknown, max: number): number => {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= max)) throw new UsageError(`${flag} must be a whole number from 1 to ${max}`);
  return n;
};

/** A progress bar per phase of `mrs migrate` (planning, migrating), shown when a phase has more than one tenant. */
function phaseBars() {
  let bar: ReturnType<typeof progressBar> | undefined;
  let phase = '';
  return {
    step(p: string, done: number, total: number) {
      if (p !== phase) {
        bar?.done();
        phase = p;
        bar = total > 1 ? progressBar(total, `${p} tenants`) : undefined;
      }
      bar?.update(done);
    },
    log: (line: string) => (bar ? bar.log(line) : console.error(line)),
    done() {
      bar?.done();
      bar = undefined;
    },
  };
}

const readNames = (file: string): string => {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new UsageError(`--file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
};

/** Every command of `mrs` by name; a name with a space is a command of a group (`tenant create`). */
export const COMMANDS: Record<string, Command> = {
  serve: command(
    'serve',
    'Serve the API, configured from the environment (PORT, HOST, DATABASE_URL, ...: see docs/configuration.md). Creates tenant demo.main with user admin when absent.',
    {},
    serve,
  ),
  migrate: command(
    'migrate',
    "Bring every tenant's tables up to the resource definitions, or refuse (changing no tenant) where data would be lost or hidden.",
    {
      options: [
        { flags: '--dry-run', description: 'print the plan per tenant and resource and change nothing' },
        { flags: '--all', description: 'plan every tenant, also those that recorded the current definitions (a table changed by hand)' },
        { flags: '--concurrency <n>', description: 'tenants planned, then migrated, at once (default MIGRATE_CONCURRENCY, 4)' },
      ],
    },
    async (_args, values) => {
      // DDL on MIGRATE_DATABASE_URL when set: a direct connection, not the pooler.
      const config = migrationConfig(loadConfig());
      const concurrency =
        values['concurrency'] === undefined ? config.migrateConcurrency : countArg('--concurrency', values['concurrency'], 64);
      const service = await createService(config, { migrateOnOpen: false });
      try {
        const out = (text: string) => process.stdout.write(`${text}\n`);
        const dryRun = values['dryRun'] === true;
        const bars = phaseBars();
        const refusals = await migrateTenants(service, {
          dryRun,
          all: values['all'] === true,
          concurrency,
          out,
          progress: bars.log,
          step: bars.step,
          summary: (s) => {
            bars.done();
            const did = dryRun ? `dry run: ${s.planned - s.refused} to migrate` : `migrate: ${s.migrated} migrated`;
            console.error(`${did}, ${s.unchanged} unchanged, ${s.refused} refused in ${formatDuration(s.ms)}`);
          },
        });
        if (refusals.length > 0)
          throw new CommandError(`${dryRun ? 'would refuse' : 'refused, no tenant changed'}:\n${refusals.join('\n')}`);
        if ((await service.tenants.list()).length === 0) console.error('no tenants yet: mrs tenant create <client_db>');
        if (dryRun) return;
        const roster = await openRoster(service.config);
        try {
          const { schemaFingerprint, registry } = service.engine;
          for (const line of olderServersNote(await roster.running(), schemaFingerprint, registry)) console.error(line);
        } finally {
          await roster.close();
        }
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
  'tenant create': command(
    'tenant create',
    'Create tenants with their tables: the names given, and those of a file (one per line, # comments), MIGRATE_CONCURRENCY at a time.',
    { args: ['[client_db...]'], options: [{ flags: '--file <path>', description: 'read more client_db names from a file (- for stdin)' }] },
    async (names, values) => {
      const file = typeof values['file'] === 'string' ? values['file'] : undefined;
      const wanted = tenantNames([...names, ...(file === undefined ? [] : namesInFile(readNames(file)))]);
      if (wanted.length === 0) throw new UsageError('name at least one client_db, or --file <path>');
      await withService(async (s) => {
        const existing: string[] = [];
        const bar = wanted.length > 1 ? progressBar(wanted.length, 'creating tenants') : undefined;
        let done = 0;
        // Several at once, as mrs migrate: each tenant's creation is its own.
        await eachLimited(wanted, s.config.migrateConcurrency, async (clientDb) => {
          try {
            await s.tenants.create(clientDb);
            if (!bar) console.error(`created tenant ${clientDb}`);
          } catch (e) {
            if (!(e instanceof TenantExistsError)) throw e;
            existing.push(clientDb);
          }
          bar?.update(++done);
        });
        existing.sort((a, b) => wanted.indexOf(a) - wanted.indexOf(b));
        bar?.done();
        if (existing.length === 0) return;
        if (wanted.length === 1) throw new CommandError(`tenant ${existing[0]} already exists`);
        throw new CommandError(`created ${wanted.length - existing.length}; ${existing.length} already exist: ${existing.join(', ')}`);
      });
    },
  ),
  'tenant list': command('tenant list', 'List the tenants (client_db names).', {}, async () => {
    const tenants = await withService((s) => s.tenants.list());
    process.stdout.write(
      table(
        ['CLIENT_DB'],
        [...tenants].sort().map((t) => [t]),
      ),
    );
  }),
  ...STEP_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...FILE_COMMANDS,
  ...CLIENT_COMMANDS,
};
