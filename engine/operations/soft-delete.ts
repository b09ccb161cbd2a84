import type { Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import { storedOf, nextTimestamp, writtenOf } from '../records.ts';
import { VERSION_COLUMN } from '../schema/table.ts';
import { nextVersion, updateRowWithEvent } from '../sql/record-writes.ts';
import { inTransaction, loadForWrite, notFound, type OperationContext } from './context.ts';
import { appendEvent, eventTime } from './events.ts';
import { writerOf } from '../writes/writer.ts';
import { expectedVersion, notWritten } from './precondition.ts';
import { NEVER } from '../writes/conditions.ts';
import { ifMatchCondition } from '../writes/rules/if-match.ts';

/**
 * Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. One
 * statement (deletedInStatement) or one transaction, with its event, which keeps the row it
 * replaced (read under its lock: loadForWrite). A delete is a write: it advances the version,
 * under If-Match as a compare-and-set.
 */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number, ifMatch?: Condition): Promise<void> {
  const { flavour } = ctx.tenant;
  if (await deletedInStatement(ctx, resource, id, ifMatch)) return;
  await inTransaction(ctx.tenant.db, async (trx) => {
    const current = await loadForWrite(trx, ctx, resource, id);
    if (!current) throw notFound(resource.name, id);
    const expected = expectedVersion(current, ifMatch);
    let update = trx
      .updateTable(resource.name)
      .set({ deleted: flavour.encode('boolean', true), updated: nextTimestamp(current.record.updated), [VERSION_COLUMN]: nextVersion })
      .where('id', '=', id)
      .where('deleted', '=', flavour.encode('boolean', false));
    if (expected !== undefined) update = update.where(VERSION_COLUMN, '=', expected);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) return notWritten(trx, ctx, resource, id, expected !== undefined);
    const { record, json } = writtenOf(storedOf(resource, flavour, row));
    await appendEvent(trx, ctx, resource, 'delete', record, ['deleted'], json, current.before);
  });
}

/**
 * The delete as one statement, record and event (Supports.eventInStatement), its If-Match the
 * statement's condition (ifMatchCondition): without a transaction, or as one statement of a
 * caller's (a batch's). The statement writes a live row only, at a tag's version; when it writes
 * none, the record is read to answer 404 or 412. False when the delete needs its transaction.
 */
async function deletedInStatement(ctx: OperationContext, resource: Resource, id: number, ifMatch: Condition | undefined): Promise<boolean> {
  const { tenant } = ctx;
  const precondition = ifMatchCondition(ifMatch);
  const writer = writerOf(tenant);
  if (!writer.oneStatement || precondition === NEVER) return false;
  const row = { deleted: tenant.flavour.encode('boolean', true), updated: nextTimestamp(undefined) };
  const event = { at: eventTime(ctx), user: ctx.user ?? null, op: 'delete' as const };
  const written = await updateRowWithEvent(tenant, tenant.db, resource, id, row, undefined, event, precondition ? [precondition] : []);
  if (!written) return notWritten(tenant.db, ctx, resource, id, precondition !== undefined);
  writer.wrote(tenant);
  return true;
}
