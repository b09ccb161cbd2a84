import { expect, it } from 'vitest';
import { describeEachDatabase, M, startHarness } from '../support/harness.ts';
import { insertRecords, workOrder } from '../support/rows.ts';

const clock = { t: Date.now() };

describeEachDatabase(
  'pagination: at most CURSOR_MAX_LIVE cursors a tenant',
  (h) => {
    it('past the cap, the sweep removes the cursors nearest their expiry first; the others page on', async () => {
      await insertRecords(
        h(),
        'work_orders',
        Array.from({ length: 30 }, () => workOrder({ department_id: 41 })),
      );
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const stored = async () =>
        (await tenant.db.selectFrom('mrs_cursors').select('id').where('chunk', '=', 0).execute()).map((r) => r.id as string);
      const made: string[] = [];
      for (let i = 0; i < 8; i++) {
        clock.t += 1000; // each made a second after the one before: each expires later
        const r = await h().get(`${M}/work_orders?department_id=41&priority:gte=${-i}`);
        expect(r.status, r.text).toBe(200);
        made.push(r.headers.get('x-cursor')!);
      }
      expect(await stored()).toEqual(expect.arrayContaining(made));
      clock.t += 61_000; // the next new search sweeps (at most once a minute while nothing is expired)
      const next = await h().get(`${M}/work_orders?department_id=41`);
      const left = await stored();
      expect(left).toHaveLength(6); // the cap, and the new search's own
      expect(left).toEqual(expect.arrayContaining([...made.slice(3), next.headers.get('x-cursor')!]));
      // Another process (no memory of them) finds the three oldest gone and the rest paging.
      const s = h().service.config;
      const other = await startHarness(h().db, {
        reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl },
        env: { CURSOR_MAX_LIVE: '5' },
        now: () => clock.t,
      });
      try {
        for (const [i, c] of made.entries())
          expect((await other.harness.get(`${M}/work_orders?$cursor=${c}&$page=2`)).status).toBe(i < 3 ? 410 : 200);
      } finally {
        await other.stop(true);
      }
    });

    it('a flood of new searches within a minute is swept every 256 of them: the cursors stay within the cap and one batch', async () => {
      const tenant = (await h().service.tenants.get('demo.main'))!;
      const heads = async () => (await tenant.db.selectFrom('mrs_cursors').select('id').where('chunk', '=', 0).execute()).length;
      for (let i = 0; i < 600; i++) expect((await h().get(`${M}/work_orders?department_id=41`)).status).toBe(200);
      expect(await heads()).toBeLessThanOrEqual(5 + 256);
    });
  },
  { env: { CURSOR_MAX_LIVE: '5' }, now: () => clock.t },
);
