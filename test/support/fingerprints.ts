import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { join } from 'node:path';
import type { Service } from '../../server/service.ts';
import { CATALOG } from '../../server/tenants/sqlite.ts';

/**
 * Forgets which definitions every tenant was migrated to, as for tenants of a release before
 * fingerprints: the next start plans them all again (a test that changed a table by hand needs it).
 */
export async function forgetFingerprints(service: Service): Promise<void> {
  const { config } = service;
  if (!config.databaseUrl) return void new Database(join(config.dataDir, CATALOG)).exec('delete from tenant_fingerprints').close();
  const t = (await service.tenants.get('demo.main'))!;
  await sql`delete from mrs_server.tenant_fingerprints`.execute(t.db);
}
