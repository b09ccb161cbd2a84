import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import type { MigrationStep } from '../../engine/schema/index.ts';
import { loadConfig } from '../../server/config.ts';
import { migrateTenants } from '../../server/migrate-tenants.ts';
import { createService } from '../../server/service.ts';
import { DEFAULTS, withWorkOrderFields } from '../support/changed-definitions.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DATABASES, M, startHarness } from '../support/harness.ts';

const NEXT = withWorkOrderFields({ site: string({ required: true }) });
/** Fills the rows that lack a site: run again by a later step, it finds those an old server made meanwhile. */
const fill = (name: string): MigrationStep => ({
  name,
  up: async ({ db }) => void (await db.updateTable('work_orders').set({ site: 'plant' }).where('site', 'is', null).execute()),
});

for (const db of DATABASES)
  describe(`a server of the release before, after mrs migrate added a required field [${db}]`, () => {
    it("still creates records without it (the rule is the servers'); mrs migrate --all --dry-run names them, and a later step fills them", async () => {
      const old = await startHarness(db, { resources: DEFAULTS, steps: [] });
      const place = { DATA_DIR: old.dataDir, DATABASE_URL: old.databaseUrl };
      const run = async (steps: MigrationStep[], options: { dryRun: boolean; all?: boolean }) => {
        const s = await createService(loadConfig(place), { resources: NEXT, steps, migrateOnOpen: false });
        try {
          return await migrateTenants(s, { ...options, out: () => {}, progress: () => {} });
        } finally {
          await s.close();
        }
      };
      try {
        expect((await old.harness.post(`${M}/work_orders`, WORK_ORDER)).status).toBe(201);
        expect(await run([fill('0001-fill-site')], { dryRun: false })).toEqual([]);
        const made = await old.harness.post(`${M}/work_orders`, WORK_ORDER);
        expect(made.status, made.text).toBe(201);
        expect(await run([fill('0001-fill-site')], { dryRun: true, all: true })).toEqual([
          'tenant demo.main: resource work_orders: field site: is required, but rows hold null in column site',
        ]);
        expect(await run([fill('0001-fill-site'), fill('0002-fill-site-again')], { dryRun: false })).toEqual([]);
        const t = (await old.harness.service.tenants.get('demo.main'))!;
        expect(await t.db.selectFrom('work_orders').select('site').orderBy('id').execute()).toEqual([{ site: 'plant' }, { site: 'plant' }]);
      } finally {
        await old.stop();
      }
    });
  });
