import { expect, it } from 'vitest';
import { toRow } from '../../engine/records.ts';
import { versionRead, type UpdatePlan } from '../../engine/writes/plan.ts';
import { writerOf, type Change } from '../../engine/writes/writer.ts';
import { describeEachDatabase, M } from '../support/harness.ts';
import { makeWorkOrder } from '../support/fixtures.ts';

/**
 * A change's writer retries a lost compare-and-set from a new read, but a plan whose conditions
 * never hold on the row it was made from (the rules' two forms disagreeing) is a bug: the writer
 * says so, bounded, and writes nothing, rather than looping.
 */
describeEachDatabase('the writer of a change', (h) => {
  it('retries a lost race from a new read, and gives up on a plan that never holds', async () => {
    const wo = await makeWorkOrder(h());
    const t = (await h().service.tenants.get('demo.main'))!;
    const resource = h().service.engine.registry.get('work_orders')!;
    const planWith = (version: number): UpdatePlan => ({
      kind: 'update',
      resource,
      id: wo.id,
      row: toRow(resource, t.flavour, { priority: 4, updated: new Date().toISOString() }),
      conditions: versionRead(version),
      event: { at: new Date().toISOString(), user: 'admin' },
    });
    // Read before: a replan runs inside the writer's transaction, which a request would wait for.
    const record = (await h().get(`${M}/work_orders/${wo.id}`)).body;
    let replans = 0;
    // The first plan expects a version the row no longer has (lost to another write); the new read's holds.
    const racing: Change = {
      unread: () => planWith(0),
      replan: async () => {
        replans++;
        return { plan: planWith(1), read: { record, version: 1 } };
      },
    };
    const written = await writerOf(t).change(t, racing);
    expect(written.record.priority).toBe(4);
    expect(replans).toBeGreaterThan(0);

    const never: Change = { unread: () => undefined, replan: async () => ({ plan: planWith(999), read: { record, version: 2 } }) };
    await expect(writerOf(t).change(t, never)).rejects.toThrow(/did not hold on the row its plan was made from/);
    expect((await h().get(`${M}/work_orders/${wo.id}`)).body.priority).toBe(4);
  });
});
