import type { Resource } from '../registry.ts';
import type { Stored } from '../records.ts';
import { recordJsonById } from '../sql/records-json.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';

export async function read(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  opts: { includeDeleted?: boolean } = {},
): Promise<Stored> {
  const stored = await loadRecord(ctx.tenant.db, ctx, resource, id, opts.includeDeleted);
  if (!stored) throw notFound(resource.name, id);
  return stored;
}

/** `read`, answering the record as JSON text (the database writes it: engine/sql/records-json.ts), and its version. */
export async function readJson(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  opts: { includeDeleted?: boolean } = {},
): Promise<{ json: string; version: number }> {
  const found = await recordJsonById(ctx.tenant.db, resource, id);
  if (!found || (found.deleted && !opts.includeDeleted)) throw notFound(resource.name, id);
  return found;
}

/** A parent named by a path must exist and be live (or deleted, when deleted records are asked for). */
export async function requireParent(ctx: OperationContext, resource: Resource, id: number, includeDeleted = false): Promise<void> {
  await read(ctx, resource, id, { includeDeleted });
}
