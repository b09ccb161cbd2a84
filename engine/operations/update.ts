import { EngineError } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { nextTimestamp, toRecord, toRow, type ApiRecord } from '../records.ts';
import { parseBody } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { parentLinkProblems, readOnlyProblems, throwIfAny, writableValues } from './checks.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';

type Mode = 'replace' | 'patch';

/**
 * PUT (`replace`): the body is the whole record, missing optional fields reset to their defaults.
 * PATCH (`patch`): only the fields sent change. Both in one transaction, on live records only.
 */
async function update(ctx: OperationContext, resource: Resource, id: number, body: unknown, mode: Mode): Promise<ApiRecord> {
  return ctx.tenant.db.transaction().execute(async (trx) => {
    const current = await loadRecord(trx, ctx, resource, id);
    if (!current) throw notFound(resource.name, id);
    const parsed = parseBody(schemasOf(resource)[mode], body) as ApiRecord;
    throwIfAny(readOnlyProblems(resource, parsed, current));
    const values = writableValues(resource, parsed);
    const changedLinks = Object.fromEntries(
      [...resource.parents.values()].filter((f) => f in values && values[f] !== current[f]).map((f) => [f, values[f]]),
    );
    throwIfAny(await parentLinkProblems(trx, ctx, resource, changedLinks));
    const row = toRow(resource, ctx.tenant.dialect, { ...values, updated: nextTimestamp(current.updated) });
    const updated = await trx.updateTable(resource.name).set(row).where('id', '=', id).returningAll().executeTakeFirst();
    if (!updated) throw new EngineError('internal', 'The record vanished during the update.');
    return toRecord(resource, ctx.tenant.dialect, updated);
  });
}

export const replace = (ctx: OperationContext, resource: Resource, id: number, body: unknown) =>
  update(ctx, resource, id, body, 'replace');

export const patch = (ctx: OperationContext, resource: Resource, id: number, body: unknown) =>
  update(ctx, resource, id, body, 'patch');
