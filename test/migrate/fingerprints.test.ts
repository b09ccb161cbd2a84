import { expect, it } from 'vitest';
import { defineResource, string } from '../../engine/define.ts';
import { createRegistry } from '../../engine/registry.ts';
import { schemaFingerprint } from '../../engine/schema/index.ts';
import { SERVER_MIGRATIONS } from '../../server/migrations/index.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { describeEachDatabase, startHarness, type Harness } from '../support/harness.ts';
import { tableShape } from '../support/resources-dir.ts';

const SHIPPED = [workOrders, notes, serviceRequests];
const CHANGED = [
  defineResource({ ...workOrders, fields: { ...workOrders.fields, site: string({ nullable: true }) } }),
  notes,
  serviceRequests,
];

/** Each start on the same data, in turn, with the definitions given; `during` sees each. */
async function starts(db: Harness['db'], runs: { resources: typeof SHIPPED; during: (h: Harness) => Promise<void> }[]) {
  const first = await startHarness(db, { resources: runs[0]!.resources });
  try {
    await runs[0]!.during(first.harness);
    await first.stop(true);
    for (const run of runs.slice(1)) {
      const next = await startHarness(db, { resources: run.resources, reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
      try {
        await run.during(next.harness);
      } finally {
        await next.stop(true);
      }
    }
  } finally {
    await first.cleanup();
  }
}

describeEachDatabase('schema fingerprints: a start plans only the tenants whose definitions changed', (h) => {
  it('a tenant records the fingerprint it was migrated to; the same definitions skip it, changed ones migrate it', async () => {
    await starts(h().db, [
      {
        resources: SHIPPED,
        during: async (s) => {
          const fingerprints = await s.service.tenants.fingerprints();
          expect(fingerprints.get('demo.main')).toBe(s.service.engine.schemaFingerprint);
          // A change by hand is not what a fingerprint sees: the next start with the same definitions leaves it.
          const t = (await s.service.tenants.get('demo.main'))!;
          await t.db.schema.dropIndex('work_orders_priority_idx').execute();
        },
      },
      {
        resources: SHIPPED,
        during: async (s) => {
          expect((await tableShape(s, 'work_orders')).indexes).not.toContain('work_orders_priority_idx');
        },
      },
      {
        resources: CHANGED,
        during: async (s) => {
          const shape = await tableShape(s, 'work_orders');
          expect(shape.columns).toContain('site');
          expect(shape.indexes).toContain('work_orders_priority_idx');
          expect((await s.service.tenants.fingerprints()).get('demo.main')).toBe(s.service.engine.schemaFingerprint);
        },
      },
    ]);
  });

  it('the fingerprint follows the definitions and the migrations, nothing else', async () => {
    const a = await startHarness(h().db, { resources: SHIPPED });
    const b = await startHarness(h().db, { resources: CHANGED });
    try {
      expect(a.harness.service.engine.schemaFingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(a.harness.service.engine.schemaFingerprint).toBe(schemaFingerprint(createRegistry(SHIPPED), { service: SERVER_MIGRATIONS }));
      expect(b.harness.service.engine.schemaFingerprint).not.toBe(a.harness.service.engine.schemaFingerprint);
    } finally {
      await a.stop(true);
      await a.cleanup();
      await b.stop(true);
      await b.cleanup();
    }
  });
});
