import type { Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import { nextTimestamp, toRecord } from '../records.ts';
import { VERSION_COLUMN } from '../schema/table.ts';
import { nextVersion } from '../sql/record-writes.ts';
import { beforeRowOf, inTransaction, loadForWrite, notFound, type OperationContext } from './context.ts';
import { appendEvent } from './events.ts';
import { expectedVersion, lostRace } from './precondition.ts';

/**
 * Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. One
 * transaction, with its event, which keeps the row it replaced (read under its lock:
 * loadForWrite). A delete is a write: it advances the version, under If-Match as a compare-and-set.
 */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number, ifMatch?: Condition): Promise<void> {
  const { dialect } = ctx.tenant;
  await inTransaction(ctx.tenant.db, async (trx) => {
    const current = await loadForWrite(trx, ctx, resource, id);
    if (!current) throw notFound(resource.name, id);
    const expected = expectedVersion(current, ifMatch);
    let update = trx
      .updateTable(resource.name)
      .set({ deleted: dialect.encode('boolean', true), updated: nextTimestamp(current.updated), [VERSION_COLUMN]: nextVersion })
      .where('id', '=', id)
      .where('deleted', '=', dialect.encode('boolean', false));
    if (expected !== undefined) update = update.where(VERSION_COLUMN, '=', expected);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) {
      if (expected !== undefined) await lostRace(trx, ctx, resource, id);
      throw notFound(resource.name, id);
    }
    await appendEvent(trx, ctx, resource, 'delete', toRecord(resource, dialect, row), ['deleted'], beforeRowOf(current));
  });
}
