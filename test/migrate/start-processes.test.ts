import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { eachLimited } from '../../server/migrate-tenants.ts';
import { seedWorkOrders } from '../../server/seed.ts';
import { createService } from '../../server/service.ts';
import { login } from '../support/auth.ts';
import { DEFAULTS } from '../support/changed-definitions.ts';
import { M, VIA_PGBOUNCER } from '../support/harness.ts';
import { TEST_DATABASE_URL } from '../support/pg.ts';
import { pgbouncerAvailable } from '../support/pgbouncer.ts';
import {
  COUNTED_STEP,
  processPlace,
  releaseFolders,
  startServers,
  stepRuns,
  stopServers,
  withSite,
  type PlaceKind,
} from '../support/release-folders.ts';

// The PgBouncer run of the suite (TEST_PGBOUNCER) has these already: the first run starts its own.
const KINDS: PlaceKind[] = VIA_PGBOUNCER
  ? []
  : [
      'sqlite',
      ...(TEST_DATABASE_URL ? (['postgres'] as const) : []),
      ...(TEST_DATABASE_URL && pgbouncerAvailable() ? (['pgbouncer'] as const) : []),
    ];

/**
 * Tenants with a work order each, made by the release before (in this process), then three
 * `mrs serve` of the next release (a required field and the step that fills it) started at once.
 */
async function threeStartAtOnce(kind: PlaceKind, tenants: string[], waitMs?: number) {
  const place = await processPlace(kind);
  const release = releaseFolders({ workOrders: withSite, steps: { '0001-fill-site.ts': COUNTED_STEP } });
  let procs: Awaited<ReturnType<typeof startServers>>['procs'] = [];
  try {
    const older = await createService(loadConfig({ DATA_DIR: place.direct.dataDir, DATABASE_URL: place.direct.databaseUrl }), {
      resources: DEFAULTS,
      steps: [],
    });
    let token: string;
    try {
      await eachLimited(
        tenants,
        4,
        async (name) => void (await seedWorkOrders(await older.tenants.create(name), older.engine.registry, 1)),
      );
      token = (await login(older, { clientDb: tenants[0]! })).token;
    } finally {
      await older.close();
    }
    const started = await startServers(3, { ...place.env, ...release.env }, waitMs);
    procs = started.procs;
    expect(await stepRuns(place.direct, tenants)).toEqual(Object.fromEntries(tenants.map((t) => [t, 1])));
    for (const origin of started.origins) {
      const r = await fetch(`${origin}${M}/work_orders`, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual([expect.objectContaining({ site: 'plant' })]);
    }
  } finally {
    await stopServers(procs);
    release.remove();
    await place.cleanup();
  }
}

for (const kind of KINDS)
  describe(`three mrs serve processes started at once on one database [${kind}]`, () => {
    it(
      'run a pending step once per tenant (counted in its own table) and then serve its field',
      () => threeStartAtOnce(kind, ['a.main', 'b.main', 'c.main']),
      150_000,
    );

    // Each server plans all 200 before it listens (a refusal anywhere stops it), which a loaded machine takes minutes over.
    it(
      'migrate each of 200 tenants behind the definitions once',
      () =>
        threeStartAtOnce(
          kind,
          Array.from({ length: 200 }, (_, i) => `t${String(i).padStart(3, '0')}.main`),
          300_000,
        ),
      600_000,
    );
  });
