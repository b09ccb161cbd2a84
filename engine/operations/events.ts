import { sharedChanged } from '../events/event-sql.ts';
import type { Resource } from '../registry.ts';
import type { ChangeCaller } from '../writes/plan.ts';
import type { OperationContext } from './context.ts';

/** Who changes a record and when, as a change's plan takes it. */
export const changeCallerOf = (ctx: OperationContext): ChangeCaller => ({
  flavour: ctx.tenant.flavour,
  at: eventTime(ctx),
  user: ctx.user ?? null,
});

/** When an event happens: the engine's clock, which retention measures by. */
export const eventTime = (ctx: OperationContext): string => new Date(ctx.cursors.now()).toISOString();

/** A create's `changed`: every field of the collection (SPEC 9). Made once per collection. */
const created = new WeakMap<Resource, readonly string[]>();
export function createdFields(resource: Resource): readonly string[] {
  let fields = created.get(resource);
  if (!fields) created.set(resource, (fields = sharedChanged(Object.freeze(Object.keys(resource.definition.fields)))));
  return fields;
}
