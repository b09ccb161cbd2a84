import { valueOf } from '../errors.ts';
import type { Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import type { Written } from '../records.ts';
import { factsFor } from '../writes/conditions.ts';
import { updateConditions } from '../writes/rules/index.ts';
import { checkedUpdate, planReadUpdate, planUnreadUpdate, type UpdateAsk, type UpdateMode } from '../writes/update-plan.ts';
import { writerOf } from '../writes/writer.ts';
import { loadRecord, readForChange, type OperationContext } from './context.ts';
import { changeCallerOf } from './events.ts';
import { expectedVersion } from './precondition.ts';

/**
 * PUT (`replace`) or PATCH (`patch`) of a live record, with its event. Planned without a read
 * where its body passes its checks (engine/writes/update-plan.ts: its If-Match and rules its
 * statement's WHERE); the writer (engine/writes/writer.ts) plans it again from a read when
 * that one cannot run or wrote nothing, which says why in SPEC 1's order: 404, 412 (If-Match,
 * before the body), the body's problems and the rules', then 409 or 403 (states).
 */
async function update(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  body: unknown,
  mode: UpdateMode,
  ifMatch?: Condition,
): Promise<Written> {
  const ask: UpdateAsk = { resource, id, body, mode, ifMatch, mover: ctx };
  const caller = changeCallerOf(ctx);
  return writerOf(ctx.tenant).change(ctx.tenant, {
    unread: () => planUnreadUpdate(ask, caller),
    async replan(db, lock) {
      const read = await readForChange(db, ctx, resource, id, lock);
      const expected = expectedVersion(read, ifMatch);
      const checked = checkedUpdate(ask);
      // The records the rules name (parent links sent), looked up on the read's handle.
      const facts = await factsFor(updateConditions(resource, checked.write), read, async (table, parentId) =>
        Boolean(await loadRecord(db, ctx, ctx.registry.get(table)!, parentId)),
      );
      return { plan: valueOf(planReadUpdate(ask, caller, { current: read, expected }, checked, facts)), read };
    },
  });
}

export const replace = (ctx: OperationContext, resource: Resource, id: number, body: unknown, ifMatch?: Condition) =>
  update(ctx, resource, id, body, 'replace', ifMatch);

export const patch = (ctx: OperationContext, resource: Resource, id: number, body: unknown, ifMatch?: Condition) =>
  update(ctx, resource, id, body, 'patch', ifMatch);
