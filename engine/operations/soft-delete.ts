import type { Resource } from '../registry.ts';
import { now } from '../records.ts';
import { notFound, type OperationContext } from './context.ts';

/** Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number): Promise<void> {
  const { db, dialect } = ctx.tenant;
  const result = await db
    .updateTable(resource.name)
    .set({ deleted: dialect.encode('boolean', true), updated: now().timestamp })
    .where('id', '=', id)
    .where('deleted', '=', dialect.encode('boolean', false))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw notFound(resource.name, id);
}
