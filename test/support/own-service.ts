import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { createService, ensureDemoTenant, type ServiceOptions } from '../../server/service.ts';
import { AUTHENTICATE, ensureUser, makeKey } from './auth.ts';
import { makeHarness, type DatabaseName, type Harness } from './harness.ts';
import { freshPostgresDatabase } from './pg.ts';

/**
 * A service built with options the shared harness does not pass (a logger, REQUIRE_HTTPS), on a
 * fresh SQLite directory or PostgreSQL database, with a token for admin of demo.main. The token
 * is asked for at an https:// URL, which app.request (no socket) takes as the transport, so
 * REQUIRE_HTTPS does not stand in the way.
 */
export async function startOwnService(
  db: DatabaseName,
  env: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<{ harness: Harness; stop(): Promise<void> }> {
  let drop = async () => {};
  const where: Record<string, string> = {};
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mrs-test-'));
    where.DATA_DIR = dir;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const fresh = await freshPostgresDatabase();
    where.DATABASE_URL = fresh.url;
    drop = fresh.drop;
  }
  const service = await createService(loadConfig({ ...where, ...env }), { onUnexpectedError: () => {}, ...options });
  await ensureDemoTenant(service.tenants);
  await ensureUser(service, 'demo.main', 'admin');
  const { key } = await makeKey(service, 'demo.main', 'admin');
  const res = await service.app.request(`https://localhost${AUTHENTICATE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key, client_db: 'demo.main', username: 'admin' }),
  });
  if (res.status !== 200) throw new Error(`authenticate: ${res.status} ${await res.text()}`);
  const { access_token } = (await res.json()) as { access_token: string };
  return {
    harness: makeHarness(db, service, access_token),
    async stop() {
      await service.close();
      await drop();
    },
  };
}
