import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import type { MigrationStep } from '../../engine/schema/index.ts';
import { loadConfig } from '../../server/config.ts';
import { migrateTenants } from '../../server/migrate-tenants.ts';
import { createService } from '../../server/service.ts';
import { login } from '../support/auth.ts';
import { DEFAULTS, withWorkOrderFields } from '../support/changed-definitions.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DATABASES, M, startHarness, type Harness } from '../support/harness.ts';

const NEXT = withWorkOrderFields({ site: string({ required: true }) });
/** Fills site from the department; a department with no plant (999) stops it, naming the rows to fix. */
const fillSite: MigrationStep = {
  name: '0001-fill-site',
  async up({ db }) {
    const orphan = await db.selectFrom('work_orders').select('id').where('department_id', '=', 999).executeTakeFirst();
    if (orphan) throw new Error(`work order ${orphan.id} has department 999, which has no plant`);
    await db
      .updateTable('work_orders')
      .set({ site: sql`'plant-' || ${sql.ref('department_id')}` })
      .execute();
  },
};

const get = (h: Harness, token: string) => h.request('GET', `${M}/work_orders`, { token });

for (const db of DATABASES)
  describe(`a tenant behind the running definitions [${db}]`, () => {
    it('answers 503 with Retry-After while its neighbours answer 200, and 200 after mrs migrate, without a restart', async () => {
      // The release before ran first, as it does in a deploy; then this server starts on the next.
      const first = await startHarness(db, { resources: DEFAULTS, steps: [] });
      await first.stop(true);
      const server = await startHarness(db, { resources: NEXT, steps: [fillSite], reuse: first });
      const place = { DATA_DIR: server.dataDir, DATABASE_URL: server.databaseUrl };
      // A process of the release before (its definitions, no steps) makes a tenant while this server runs.
      const older = await createService(loadConfig(place), { resources: DEFAULTS, steps: [], onUnexpectedError: () => {} });
      try {
        const late = await login(older, { clientDb: 'late.main' });
        const made = await older.app.request(`${M}/work_orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${late.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...WORK_ORDER, department_id: 999 }),
        });
        expect(made.status).toBe(201);
        const h = server.harness;
        const [behind, neighbour] = await Promise.all([get(h, late.token), h.get(`${M}/work_orders`)]);
        expect(behind.status, behind.text).toBe(503);
        expect(behind.headers.get('retry-after')).toBe('5');
        expect(behind.body.type).toMatch(/definitions-changed$/);
        expect(behind.body.detail).toBe(
          "The tables of tenant late.main are not yet at this server's definitions (mrs migrate brings them there). Try again shortly.",
        );
        expect(neighbour.status).toBe(200);
        expect((await get(h, late.token)).status).toBe(503);
        expect((await h.get(`${M}/work_orders`)).status).toBe(200);

        // The operator fixes the row and runs mrs migrate; the running server then serves the tenant.
        const t = (await older.tenants.get('late.main'))!;
        await t.db.updateTable('work_orders').set({ department_id: 4 }).execute();
        const migrate = await createService(loadConfig(place), { resources: NEXT, steps: [fillSite], migrateOnOpen: false });
        try {
          expect(await migrateTenants(migrate, { dryRun: false, out: () => {}, progress: () => {} })).toEqual([]);
        } finally {
          await migrate.close();
        }
        let answer = await get(h, late.token);
        // The server reads the tenant's fingerprint again at most once a second while it waits.
        for (let i = 0; i < 50 && answer.status === 503; i++) {
          await new Promise((r) => setTimeout(r, 100));
          answer = await get(h, late.token);
        }
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toEqual([expect.objectContaining({ department_id: 4, site: 'plant-4' })]);
      } finally {
        await older.close();
        await server.stop(true);
        await first.cleanup();
      }
    });
  });
