import type { Resource } from '../registry.ts';
import { now, toRecord, toRow, type ApiRecord } from '../records.ts';
import { parseBody } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { parentLinkProblems, throwIfAny } from './checks.ts';
import { notFound, loadRecord, type OperationContext, type ParentScope } from './context.ts';

/** Creates a record; under a parent path the parent link comes from the path. One transaction. */
export async function create(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent?: ParentScope,
): Promise<ApiRecord> {
  return ctx.tenant.db.transaction().execute(async (trx) => {
    if (parent && !(await loadRecord(trx, ctx, parent.resource, parent.id))) throw notFound(parent.resource.name, parent.id);
    const values = parseBody(schemasOf(resource).create, body) as ApiRecord;
    if (parent) {
      const sentLink = (body as ApiRecord)[parent.field]; // parseBody proved body an object
      if (sentLink !== undefined && sentLink !== parent.id)
        throwIfAny([{ field: parent.field, message: `must be ${parent.id}, the parent in the path, or left out` }]);
      values[parent.field] = parent.id;
    }
    throwIfAny(await parentLinkProblems(trx, ctx, resource, values));
    const t = now();
    const row = toRow(resource, ctx.tenant.dialect, { ...values, created: t.date, updated: t.timestamp, deleted: false });
    const inserted = await trx.insertInto(resource.name).values(row).returningAll().executeTakeFirstOrThrow();
    return toRecord(resource, ctx.tenant.dialect, inserted);
  });
}
