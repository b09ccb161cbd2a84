import { DEFAULT_DATA_DIR, loadConfig, type Config } from '../config.ts';
import { migrateTenants } from '../migrate-tenants.ts';
import { createLogger } from '../logging.ts';
import { openRoster, type Roster } from '../roster.ts';
import { listen, type Listening } from '../node-server.ts';
import { createService, DEMO_ADMIN, DEMO_TENANT, ensureDemoTenant, type Service } from '../service.ts';
import { CommandError } from './args.ts';
import { banner } from './banner.ts';
import { startFailure, type StartStep } from './start-failure.ts';

/** How long a stop may take in all: the connections' 10 s grace (node-server.ts), then 5 s to close the rest. */
const STOP_MS = 15_000;

/**
 * `mrs serve`. A start that cannot go on closes what it opened and fails with one line naming
 * the setting (SPEC section 8); nothing is printed before it listens, so that line is the only one.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  let service: Service | undefined;
  let roster: Roster | undefined;
  let step: StartStep = 'database';
  let l: Listening;
  let notes: string[];
  try {
    await migrateOrRefuse(config);
    service = await createService(config, { logger, onUnexpectedError: (err) => logger.error({ err }, 'unexpected error') });
    notes = demoNotes(await ensureDemoTenant(service.tenants));
    step = 'listen';
    l = await listen(service);
    service.webhooks.start();
    // Its heartbeat: `mrs migrate` tells which servers run older definitions.
    roster = await openRoster(config);
    await roster.join(service.engine.schemaFingerprint, service.engine.registry);
  } catch (e) {
    await roster?.close().catch(() => {});
    await service?.close().catch(() => {});
    if (e instanceof CommandError) throw e;
    throw new CommandError(startFailure(step, e, config));
  }
  for (const n of notes) console.error(n);
  const shared = config.databaseUrl ? ['DATABASE_URL'] : config.dataDir !== DEFAULT_DATA_DIR ? ['DATA_DIR'] : [];
  for (const line of banner({ scheme: l.scheme, host: config.host, port: l.port, basePath: service.engine.basePath }, shared))
    console.error(line);
  let stopping = false;
  // SIGTERM: stop accepting, finish in-flight requests, close the databases, exit 0.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing in-flight requests');
    // A request that never ends (waiting on a lock another session holds) would otherwise hold the exit forever.
    const late = setTimeout(() => {
      logger.error({ signal }, `still stopping ${STOP_MS / 1000} s later: exiting with requests in flight, the databases not closed`);
      process.exit(1);
    }, STOP_MS);
    await service!.webhooks.stop();
    await roster!.close().catch(() => {});
    await l.stop();
    clearTimeout(late);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * Every tenant planned before any changes, as `mrs migrate` does (SPEC 12: every start refuses,
 * changing nothing): one tenant's refusal stops the start before another tenant is migrated.
 */
async function migrateOrRefuse(config: Config): Promise<void> {
  const planning = await createService(config, { migrateOnOpen: false });
  let refusals: string[];
  try {
    const concurrency = config.migrateConcurrency;
    refusals = await migrateTenants(planning, { dryRun: false, concurrency, spread: true, out: () => {}, progress: () => {} });
  } finally {
    await planning.close();
  }
  if (refusals.length > 0)
    throw new CommandError(`refused to migrate, no tenant changed (mrs migrate --dry-run shows the plan):\n${refusals.join('\n')}`);
}

function demoNotes(demo: { createdTenant: boolean; createdAdmin: boolean }): string[] {
  return [
    ...(demo.createdTenant ? [`created tenant ${DEMO_TENANT}`] : []),
    ...(demo.createdAdmin ? [`created user ${DEMO_ADMIN} (role admin) in ${DEMO_TENANT}`] : []),
  ];
}
