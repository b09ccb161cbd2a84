import type { TenantDb } from '../../engine/dialects/types.ts';
import type { Config } from '../config.ts';
import { POSTGRES_OPEN_MAX, postgresTenants } from './postgres.ts';
import { SQLITE_OPEN_MAX, sqliteTenants } from './sqlite.ts';
import type { TenantStore } from './types.ts';

export { checkClientDb, CLIENT_DB } from './client-db.ts';
export { TenantExistsError, usingLease, type TenantLease, type TenantStore } from './types.ts';

/** SQLite files under DATA_DIR, or PostgreSQL schemas when DATABASE_URL is set. */
export function openTenants(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'pgPreparedStatements'> & Partial<Pick<Config, 'tenantIdleS' | 'tenantOpenMax'>>,
  migrate: (t: TenantDb) => Promise<void>,
  onUnnamed?: (why: string) => void,
): TenantStore {
  const idleMs = (config.tenantIdleS ?? 0) * 1000;
  return config.databaseUrl
    ? postgresTenants(config.databaseUrl, migrate, {
        preparedStatements: config.pgPreparedStatements,
        idleMs,
        maxOpen: config.tenantOpenMax ?? POSTGRES_OPEN_MAX,
        ...(onUnnamed ? { onUnnamed } : {}),
      })
    : sqliteTenants(config.dataDir, migrate, { idleMs, maxOpen: config.tenantOpenMax ?? SQLITE_OPEN_MAX });
}
