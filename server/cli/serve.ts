import { loadConfig } from '../config.ts';
import { createLogger } from '../logging.ts';
import { listen, type Listening } from '../node-server.ts';
import { createService, DEMO_ADMIN, DEMO_TENANT, ensureDemoTenant, type Service } from '../service.ts';
import { CommandError } from './args.ts';
import { banner } from './banner.ts';
import { startFailure, type StartStep } from './start-failure.ts';

/**
 * `mrs serve`. A start that cannot go on closes what it opened and fails with one line naming
 * the setting (SPEC section 8); nothing is printed before it listens, so that line is the only one.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  let service: Service | undefined;
  let step: StartStep = 'database';
  let l: Listening;
  let notes: string[];
  try {
    service = await createService(config, { logger, onUnexpectedError: (err) => logger.error({ err }, 'unexpected error') });
    notes = demoNotes(await ensureDemoTenant(service.tenants));
    for (const t of await service.tenants.list()) await service.tenants.get(t); // migrate every tenant at start
    step = 'listen';
    l = await listen(service);
    service.webhooks.start();
  } catch (e) {
    await service?.close().catch(() => {});
    throw new CommandError(startFailure(step, e, config));
  }
  for (const n of notes) console.error(n);
  for (const line of banner({ scheme: l.scheme, host: config.host, port: l.port, basePath: service.engine.basePath })) console.error(line);
  let stopping = false;
  // SIGTERM: stop accepting, finish in-flight requests, close the databases, exit 0.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing in-flight requests');
    await service!.webhooks.stop();
    await l.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function demoNotes(demo: { createdTenant: boolean; createdAdmin: boolean }): string[] {
  return [
    ...(demo.createdTenant ? [`created tenant ${DEMO_TENANT}`] : []),
    ...(demo.createdAdmin ? [`created user ${DEMO_ADMIN} (role admin) in ${DEMO_TENANT}`] : []),
  ];
}
