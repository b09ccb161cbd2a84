import { createEngine, type Engine } from '../engine/create-engine.ts';
import type { ResourceDefinition } from '../engine/define.ts';
import type { Hono } from 'hono';
import { createApp } from './app.ts';
import { DEMO_TENANT, fixedTenantCaller } from './caller.ts';
import type { Config } from './config.ts';
import { loadResources } from './load-resources.ts';
import { openTenants, type TenantStore } from './tenants/index.ts';

export interface Service {
  readonly config: Config;
  readonly engine: Engine;
  readonly tenants: TenantStore;
  readonly app: Hono;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Definitions to serve; default: every file in resources/. */
  resources?: readonly ResourceDefinition[];
  /** The clock in epoch milliseconds (tests move it to expire cursors). */
  now?: () => number;
  /** Where unexpected errors go (default: stderr). */
  onUnexpectedError?: (e: unknown) => void;
}

/** Wires configuration, tenants, the engine and the HTTP app; opens nothing that listens. */
export async function createService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const resources = options.resources ?? (await loadResources());
  const onUnexpectedError = options.onUnexpectedError ?? ((e: unknown) => console.error(e));
  let tenants: TenantStore | undefined;
  const engine = createEngine({
    resources,
    resolveCaller: (req) => fixedTenantCaller(tenants!)(req),
    onUnexpectedError,
    cursorTtlS: config.cursorTtlS,
    ...(options.now ? { now: options.now } : {}),
  });
  tenants = openTenants(config, (t) => engine.migrate(t));
  const app = createApp({ engine, tenants, onUnexpectedError });
  return { config, engine, tenants, app, close: () => tenants.close() };
}

/** Creates the demo tenant when absent, as `npm start` promises. */
export async function ensureDemoTenant(tenants: TenantStore): Promise<boolean> {
  if (await tenants.get(DEMO_TENANT)) return false;
  await tenants.create(DEMO_TENANT);
  return true;
}
