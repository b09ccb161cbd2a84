import { expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import { createRegistry } from '../../engine/registry.ts';
import { schemaFingerprint } from '../../engine/schema/index.ts';
import { servers } from '../../server/migrations/shared/001-servers.ts';
import { migrateShared } from '../../server/migrations/shared/index.ts';
import type { Config } from '../../server/config.ts';
import { openRoster } from '../../server/roster.ts';
import { postgresServerDb } from '../../server/tenants/postgres.ts';
import { sqliteCatalogDb } from '../../server/tenants/sqlite.ts';
import { withWorkOrderFields } from '../support/changed-definitions.ts';
import { useCli } from '../support/cli.ts';
import { describeEachDatabase } from '../support/harness.ts';

/** The release before: work_orders had a location field that the shipped definitions no longer hold. */
const OLDER = createRegistry(withWorkOrderFields({ location: string({ nullable: true }) }));

describeEachDatabase('mrs migrate names the servers running older definitions', (h) => {
  const mrs = useCli(() => ({ DATA_DIR: h().service.config.dataDir, DATABASE_URL: h().service.config.databaseUrl ?? '' }));

  it('says which servers beat with another fingerprint and what they answer until restarted; a server on the new one, nothing', async () => {
    const older = await openRoster(h().service.config);
    const current = await openRoster(h().service.config);
    try {
      await older.join(schemaFingerprint(OLDER), OLDER);
      await current.join(h().service.engine.schemaFingerprint, h().service.engine.registry);
      const r = await mrs('migrate');
      expect(r.code, r.err).toBe(0);
      const said = r.err.trimEnd().split('\n');
      expect(said.slice(-2)[0]).toBe('1 server running older definitions; restart it:');
      expect(said.at(-1)).toMatch(
        /^ {2}\S+ pid \d+, seen \d+ s ago: answers 503 with Retry-After to requests of work_orders \(location renamed or removed\) until restarted$/,
      );
    } finally {
      await older.close();
    }
    // Gone from the roster once closed: the next run names none.
    try {
      const r = await mrs('migrate');
      expect(r.err).not.toMatch(/older definitions/);
    } finally {
      await current.close();
    }
  });
});

/** The place of the service's shared tables, as the roster opens it. */
async function serverDb(config: Config) {
  const { db, schema } = config.databaseUrl
    ? await postgresServerDb(config.databaseUrl)
    : { db: sqliteCatalogDb(config.dataDir), schema: undefined };
  return { db, schema, q: schema ? db.withSchema(schema) : db };
}

describeEachDatabase("the roster's table, a migration of the service's shared tables", (h) => {
  it('is recorded in the shared mrs_migration_service, adopting the table a release before made on first use', async () => {
    const config = h().service.config;
    const { db, schema, q } = await serverDb(config);
    try {
      // As the release before made it: no migration recorded, a server's row in it.
      await q.schema.dropTable('servers').ifExists().execute();
      await q.schema.dropTable('mrs_migration_service').ifExists().execute();
      await servers.up(q);
      await q
        .insertInto('servers')
        .values({
          id: 'x',
          fingerprint: 'f',
          host: 'h',
          pid: 1,
          started: new Date().toISOString(),
          seen: new Date().toISOString(),
          fields: '{}',
        })
        .execute();
      const rosters = await Promise.all([openRoster(config), openRoster(config), openRoster(config)]);
      for (const r of rosters) await r.close();
      expect((await q.selectFrom('mrs_migration_service').select('name').execute()).map((r) => r.name)).toEqual(['001-servers']);
      expect((await q.selectFrom('servers').select('id').execute()).map((r) => r.id)).toEqual(['x']);
    } finally {
      await db.destroy();
    }
  });
});

describeEachDatabase("the service's shared tables when every migration of them is recorded", (h) => {
  it('are found current by one read: Kysely reading every table of the database (which grows with the tenants) is not asked', async () => {
    const config = h().service.config;
    const { db, schema, q } = await serverDb(config);
    try {
      await migrateShared(q, schema);
      Object.defineProperty(q, 'introspection', {
        get: () => {
          throw new Error('introspected');
        },
      });
      await expect(migrateShared(q, schema, 1)).resolves.toBeUndefined();
    } finally {
      await db.destroy();
    }
  });
});

describeEachDatabase("the service's shared tables when a migration of them is pending", (h) => {
  it('are migrated without Kysely reading every table of the database (which grows with the tenants)', async () => {
    const config = h().service.config;
    const { db, schema, q } = await serverDb(config);
    try {
      await q.schema.dropTable('mrs_migration_service').ifExists().execute();
      await q.schema.dropTable('mrs_migration_service_lock').ifExists().execute();
      Object.defineProperty(q, 'introspection', {
        get: () => {
          throw new Error('introspected');
        },
      });
      await migrateShared(q, schema, 1);
      await migrateShared(q, schema, 1);
      expect((await q.selectFrom('mrs_migration_service').select('name').execute()).map((r) => r.name)).toEqual(['001-servers']);
    } finally {
      await db.destroy();
    }
  });
});
