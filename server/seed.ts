import type { TenantDb } from '../engine/dialects/types.ts';
import type { Registry } from '../engine/registry.ts';
import { now, toRow } from '../engine/records.ts';

/** Deterministic demo work orders, inserted in batches inside one transaction each. */
export async function seedWorkOrders(
  t: TenantDb,
  registry: Registry,
  count: number,
  onProgress: (done: number) => void = () => {},
): Promise<void> {
  const resource = registry.get('work_orders');
  if (!resource) throw new Error('there is no work_orders resource to seed');
  const batch = t.catalog.bulkLoad.rowsPerTransaction;
  const stamp = now();
  let rng = 0x2545f491;
  const next = (n: number) => {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    return (rng >>> 0) % n;
  };
  const statuses = ['open', 'in_progress', 'on_hold', 'closed'];
  for (let done = 0; done < count;) {
    const n = Math.min(batch, count - done);
    const rows = Array.from({ length: n }, (_, i) => {
      const day = new Date(Date.UTC(2024, 0, 1) + next(700) * 86400000).toISOString().slice(0, 10);
      return toRow(resource, t.flavour, {
        department_id: 1 + next(50),
        work_order_type_id: 1 + next(20),
        work_order_type_group_id: 1 + next(5),
        priority: next(6) === 0 ? null : 1 + next(5),
        status: statuses[next(statuses.length)],
        description: `Seeded work order ${done + i + 1}`,
        service_request_id: null,
        created: day,
        updated: stamp.timestamp,
        deleted: false,
      });
    });
    const perStatement = Math.floor(30000 / Object.keys(rows[0]!).length / 10) * 10;
    await t.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += perStatement)
        await trx
          .insertInto(resource.name)
          .values(rows.slice(i, i + perStatement))
          .execute();
    });
    done += n;
    onProgress(done);
  }
  // Fresh statistics, so the planner picks the selective index for a search right away (and,
  // on PostgreSQL, a visibility map, so a search's ids come from an index alone).
  await t.catalog.bulkLoad.after(t, [resource.name]);
}
