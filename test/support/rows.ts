import { now, toRow } from '../../engine/records.ts';
import type { Harness } from './harness.ts';

/** Inserts records straight into a tenant's table (fast set-up for large pages), returning their ids in order. */
export async function insertRecords(
  h: Harness,
  collection: string,
  records: Record<string, unknown>[],
  clientDb = 'demo.main',
): Promise<number[]> {
  const tenant = await h.service.tenants.get(clientDb);
  const resource = h.service.engine.registry.get(collection);
  if (!tenant || !resource) throw new Error(`no ${clientDb} or ${collection}`);
  const t = now();
  const ids: number[] = [];
  for (let i = 0; i < records.length; i += 500) {
    const rows = records
      .slice(i, i + 500)
      .map((r) => toRow(resource, tenant.flavour, { created: t.date, updated: t.timestamp, deleted: false, ...r }));
    const inserted = await tenant.db.insertInto(collection).values(rows).returning('id').execute();
    ids.push(...inserted.map((r) => Number(r.id)));
  }
  return ids;
}

export const workOrder = (over: Record<string, unknown> = {}) => ({
  department_id: 1,
  work_order_type_id: 1,
  work_order_type_group_id: 1,
  priority: null,
  status: 'open',
  description: null,
  service_request_id: null,
  ...over,
});
