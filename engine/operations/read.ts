import type { Resource } from '../registry.ts';
import type { Stored } from '../records.ts';
import type { ShapeNames } from '../query/shape.ts';
import { shapeOf } from '../sql/record-shape.ts';
import { recordJsonById, type RecordJson } from '../sql/records-json.ts';
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

/**
 * `read`, answering the record as JSON text (the database writes it: engine/sql/records-json.ts),
 * shaped as `$fields` and `$linked` ask, with its version and `updated`.
 */
export async function readJson(
  ctx: OperationContext,
  resource: Resource,
  id: number,
  opts: { includeDeleted?: boolean; shape?: ShapeNames } = {},
): Promise<RecordJson> {
  const shape = opts.shape && shapeOf(ctx.registry, resource, opts.shape);
  const found = await recordJsonById(ctx.tenant.db, resource, id, shape);
  if (!found || (found.deleted && !opts.includeDeleted)) throw notFound(resource.name, id);
  return found;
}

/** A parent named by a path must exist and be live (or deleted, when deleted records are asked for). */
export async function requireParent(ctx: OperationContext, resource: Resource, id: number, includeDeleted = false): Promise<void> {
  await read(ctx, resource, id, { includeDeleted });
}
