import type { Kysely } from 'kysely';
import type { Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import { nextTimestamp, toRecord, versionOf } from '../records.ts';
import { VERSION_COLUMN } from '../schema/table.ts';
import { nextVersion } from '../sql/record-writes.ts';
import { beforeRowOf, inTransaction, loadForWrite, notFound, type OperationContext } from './context.ts';
import { appendEvent } from './events.ts';
import { expectedVersion, lostRace } from './precondition.ts';

/**
 * Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. One
 * transaction, with its event. A delete is a write: it advances the version, as a compare-and-set
 * on the version read (under If-Match, the one the client names), so its event keeps the row it
 * replaced; read again when another write got in between.
 */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number, ifMatch?: Condition): Promise<void> {
  await inTransaction(ctx.tenant.db, async (trx) => {
    while (!(await deleteOnce(trx, ctx, resource, id, ifMatch)));
  });
}

/** One read and delete: false when the record changed since it was read. */
async function deleteOnce(trx: Kysely<any>, ctx: OperationContext, resource: Resource, id: number, ifMatch: Condition | undefined): Promise<boolean> {
  const { dialect } = ctx.tenant;
  const current = await loadForWrite(trx, ctx, resource, id);
  if (!current) throw notFound(resource.name, id);
  const expected = expectedVersion(current, ifMatch);
  const row = await trx
    .updateTable(resource.name)
    .set({ deleted: dialect.encode('boolean', true), updated: nextTimestamp(current.updated), [VERSION_COLUMN]: nextVersion })
    .where('id', '=', id)
    .where('deleted', '=', dialect.encode('boolean', false))
    .where(VERSION_COLUMN, '=', expected ?? versionOf(current))
    .returningAll()
    .executeTakeFirst();
  if (!row) {
    if (expected !== undefined) await lostRace(trx, ctx, resource, id);
    return false;
  }
  await appendEvent(trx, ctx, resource, 'delete', toRecord(resource, dialect, row), ['deleted'], beforeRowOf(current));
  return true;
}
