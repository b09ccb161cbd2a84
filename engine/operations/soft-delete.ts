import type { Resource } from '../registry.ts';
import { nextTimestamp } from '../records.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';
import { appendEvent } from './events.ts';

/** Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. One transaction, with its event. */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number): Promise<void> {
  const { dialect } = ctx.tenant;
  await ctx.tenant.db.transaction().execute(async (trx) => {
    const current = await loadRecord(trx, ctx, resource, id);
    if (!current) throw notFound(resource.name, id);
    const result = await trx
      .updateTable(resource.name)
      .set({ deleted: dialect.encode('boolean', true), updated: nextTimestamp(current.updated) })
      .where('id', '=', id)
      .where('deleted', '=', dialect.encode('boolean', false))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw notFound(resource.name, id);
    await appendEvent(trx, ctx, resource, 'delete', id, ['deleted']);
  });
}
