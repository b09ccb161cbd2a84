import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';

export async function read(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  opts: { includeDeleted?: boolean } = {},
): Promise<ApiRecord> {
  const record = await loadRecord(ctx.tenant.db, ctx, resource, id, opts.includeDeleted);
  if (!record) throw notFound(resource.name, id);
  return record;
}

/** A parent named by a path must exist and be live (or deleted, when deleted records are asked for). */
export async function requireParent(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  includeDeleted = false,
): Promise<void> {
  await read(ctx, resource, id, { includeDeleted });
}
