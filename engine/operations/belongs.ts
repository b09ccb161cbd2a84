import type { Resource } from '../registry.ts';
import { notFound, type OperationContext, type ParentScope } from './context.ts';

/**
 * A child item path (`{parent path}/{id}/{child}/{child_id}`) names a record of another parent:
 * 404, as for a record that is not there. A record that is not there at all is left to the
 * operation, which answers for it as on the child's own path.
 */
export async function requireBelongs(ctx: OperationContext, child: Resource, id: number, parent: ParentScope): Promise<void> {
  const row = await ctx.tenant.db.selectFrom(child.name).select(parent.field).where('id', '=', id).executeTakeFirst();
  if (row !== undefined && Number((row as Record<string, unknown>)[parent.field]) !== parent.id) throw notFound(child.name, id);
}
