import type { Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import { planReadDelete, planUnreadDelete } from '../writes/plan.ts';
import { ifMatchCondition } from '../writes/rules/if-match.ts';
import { writerOf } from '../writes/writer.ts';
import { readForChange, type OperationContext } from './context.ts';
import { changeCallerOf } from './events.ts';
import { expectedVersion } from './precondition.ts';

/**
 * Marks a live record deleted; it leaves lists and reads. Deleting it again is a 404. A delete
 * is a write: it advances the version, under If-Match as a compare-and-set. Planned without a
 * read, its If-Match its statement's condition; the writer plans it again from a read when that
 * one cannot run or wrote nothing, which says why: 404, or 412 with the record's tag.
 */
export async function softDelete(ctx: OperationContext, resource: Resource, id: number, ifMatch?: Condition): Promise<void> {
  const caller = changeCallerOf(ctx);
  await writerOf(ctx.tenant).change(ctx.tenant, {
    unread: () => planUnreadDelete(resource, id, caller, ifMatchCondition(ifMatch)),
    async replan(db, lock) {
      const read = await readForChange(db, ctx, resource, id, lock);
      return { plan: planReadDelete(resource, id, caller, read, expectedVersion(read, ifMatch)), read };
    },
  });
}
