/**
 * Migrating a tenant of BENCH_ROWS (default 100,000) work orders to definitions with one new
 * required field and the step that fills it, against the same change run by hand (the column
 * added and one UPDATE, in one transaction), on tenants seeded alike. Target: at most 2x.
 */
import { sql } from 'kysely';
import { defineResource, string } from '../engine/define.ts';
import { createRegistry } from '../engine/registry.ts';
import { migrateTenant, type MigrationStep } from '../engine/schema/index.ts';
import { loadResources } from '../server/load-resources.ts';
import { benchDatabases, seededTenant } from './support/tenant.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const fill = sql`'plant-' || ${sql.ref('department_id')}`;
const step: MigrationStep = {
  name: '0001-fill-site',
  up: async ({ db }) => void (await db.updateTable('work_orders').set({ site: fill }).execute()),
};

export async function run(): Promise<void> {
  const shipped = await loadResources();
  const next = createRegistry(
    shipped.map((r) =>
      r.name === 'work_orders' ? defineResource({ ...r, fields: { ...r.fields, site: string({ required: true }) } }) : r,
    ),
  );
  for (const kind of benchDatabases()) {
    const byHand = await seededTenant(kind, ROWS);
    const migrated = await seededTenant(kind, ROWS);
    try {
      let started = performance.now();
      await byHand.tenant.db.transaction().execute(async (trx) => {
        await trx.schema.alterTable('work_orders').addColumn('site', 'text').execute();
        await trx.updateTable('work_orders').set({ site: fill }).execute();
      });
      const handMs = performance.now() - started;
      started = performance.now();
      await migrateTenant(migrated.tenant, next, {}, [step]);
      const migrateMs = performance.now() - started;
      const filled = await migrated.tenant.db
        .selectFrom('work_orders')
        .select(sql<number>`count(*)`.as('n'))
        .where('site', 'is not', null)
        .executeTakeFirstOrThrow();
      if (Number(filled.n) !== ROWS) throw new Error(`${kind}: ${filled.n} of ${ROWS} rows filled`);
      console.log(
        `${kind}: ${ROWS} work orders, new required field + its step: migrate ${migrateMs.toFixed(0)} ms, by hand ${handMs.toFixed(0)} ms, ratio ${(migrateMs / handMs).toFixed(2)} (target <= 2)`,
      );
    } finally {
      await byHand.drop();
      await migrated.drop();
    }
  }
}
