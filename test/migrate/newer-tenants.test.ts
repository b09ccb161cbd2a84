import { describe, expect, it } from 'vitest';
import { string } from '../../engine/define.ts';
import { loadConfig } from '../../server/config.ts';
import { migrateTenants } from '../../server/migrate-tenants.ts';
import { createService } from '../../server/service.ts';
import { login } from '../support/auth.ts';
import { DEFAULTS, withWorkOrderFields, fillSite } from '../support/changed-definitions.ts';
import { WORK_ORDER } from '../support/fixtures.ts';
import { DATABASES, M, startHarness, type Reply } from '../support/harness.ts';
import { schemaDump } from '../support/schema-dump.ts';

/** The newer release: description renamed to summary, a required site its step fills. */
const NEWER = withWorkOrderFields({
  description: undefined,
  summary: string({ nullable: true, renamedFrom: 'description' }),
  site: string({ required: true }),
});

const TENANTS = ['demo.main', 'late.main'];

for (const db of DATABASES)
  describe(`a server on older definitions meets tenants a newer release migrated [${db}]`, () => {
    it('leaves their tables and fingerprints as they are, and answers 200 or 503 definitions-changed, never 500', async () => {
      // The older release ran first, then the newer migrated demo.main and created late.main.
      const older = await startHarness(db, { resources: DEFAULTS, steps: [] });
      const place = { dataDir: older.dataDir, databaseUrl: older.databaseUrl };
      expect((await older.harness.post(`${M}/work_orders`, WORK_ORDER)).status).toBe(201);
      await older.stop(true);
      const newer = await startHarness(db, { resources: NEWER, steps: [fillSite], reuse: place });
      const late = await login(newer.harness.service, { clientDb: 'late.main' });
      const made = await newer.harness.request('POST', `${M}/work_orders`, { token: late.token, body: { ...WORK_ORDER, site: 'x' } });
      expect(made.status, made.text).toBe(201);
      const fingerprints = await newer.harness.service.tenants.fingerprints();
      await newer.stop(true);
      const dumps = await Promise.all(TENANTS.map((t) => schemaDump(place, t)));

      // The older release starts again: its start's migration, as `mrs serve` runs it, then its requests.
      const lines: string[] = [];
      const planning = await createService(loadConfig({ DATA_DIR: place.dataDir, DATABASE_URL: place.databaseUrl }), {
        resources: DEFAULTS,
        steps: [],
        migrateOnOpen: false,
      });
      try {
        expect(await migrateTenants(planning, { dryRun: false, out: () => {}, progress: (l) => lines.push(l) })).toEqual([]);
      } finally {
        await planning.close();
      }
      expect(lines).toEqual(['2 tenants already at newer definitions than these, left as they are: demo.main, late.main']);
      const again = await startHarness(db, { resources: DEFAULTS, steps: [], reuse: place });
      try {
        const h = again.harness;
        const lateToken = (await login(h.service, { clientDb: 'late.main' })).token;
        const replies: Reply[] = [];
        for (const token of [h.token!, lateToken])
          replies.push(
            await h.request('GET', `${M}/work_orders`, { token }),
            await h.request('GET', `${M}/work_orders/1`, { token }),
            await h.request('POST', `${M}/work_orders`, { token, body: WORK_ORDER }),
            await h.request('GET', `${M}/notes`, { token }),
          );
        const statuses = replies.map((r) => r.status);
        expect(
          statuses.filter((s) => s !== 200 && s !== 503),
          replies.map((r) => r.text).join('\n'),
        ).toEqual([]);
        // Work orders lost description: those answers are the 503; notes did not change: 200.
        expect(statuses).toEqual([503, 503, 503, 200, 503, 503, 503, 200]);
        for (const r of replies.filter((r) => r.status === 503)) {
          expect(r.headers.get('retry-after')).toBe('5');
          expect(r.body.type).toMatch(/definitions-changed$/);
        }
        expect(await h.service.tenants.fingerprints()).toEqual(fingerprints);
      } finally {
        await again.stop(true);
      }
      expect(await Promise.all(TENANTS.map((t) => schemaDump(place, t)))).toEqual(dumps);
      await older.cleanup();
    });
  });
