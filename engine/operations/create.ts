import { EngineError, type ProblemItem } from '../errors.ts';
import type { Resource } from '../registry.ts';
import { now, toRecord, toRow, type ApiRecord } from '../records.ts';
import { parseBody } from '../validate/body.ts';
import { schemasOf } from '../validate/cache.ts';
import { parentLinkProblems, throwIfAny } from './checks.ts';
import { notFound, loadRecord, type OperationContext, type ParentScope } from './context.ts';

const isPlainObject = (x: unknown): x is ApiRecord => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Under a parent path the link comes from the path; a different link in the body is a problem. */
function withPathLink(body: unknown, parent: ParentScope | undefined): { body: unknown; problems: ProblemItem[] } {
  if (!parent || !isPlainObject(body)) return { body, problems: [] };
  const sent = body[parent.field];
  if (sent === undefined) return { body: { ...body, [parent.field]: parent.id }, problems: [] };
  if (sent === parent.id) return { body, problems: [] };
  return {
    body: { ...body, [parent.field]: parent.id },
    problems: [{ field: parent.field, message: `must be ${parent.id}, the parent in the path, or left out` }],
  };
}

function parseCollecting(resource: Resource, body: unknown, problems: ProblemItem[]): ApiRecord {
  try {
    return parseBody(schemasOf(resource).create, body) as ApiRecord;
  } catch (e) {
    if (!(e instanceof EngineError) || e.errors.length === 0) throw e;
    throw new EngineError(e.code, e.detail, [...problems, ...e.errors]);
  }
}

/** Creates a record; under a parent path the parent link comes from the path. One transaction. */
export async function create(
  ctx: OperationContext,
  resource: Resource,
  body: unknown,
  parent?: ParentScope,
): Promise<ApiRecord> {
  return ctx.tenant.db.transaction().execute(async (trx) => {
    if (parent && !(await loadRecord(trx, ctx, parent.resource, parent.id))) throw notFound(parent.resource.name, parent.id);
    const linked = withPathLink(body, parent);
    const values = parseCollecting(resource, linked.body, linked.problems);
    throwIfAny(linked.problems);
    throwIfAny(await parentLinkProblems(trx, ctx, resource, values));
    const t = now();
    const row = toRow(resource, ctx.tenant.dialect, { ...values, created: t.date, updated: t.timestamp, deleted: false });
    const inserted = await trx.insertInto(resource.name).values(row).returningAll().executeTakeFirstOrThrow();
    return toRecord(resource, ctx.tenant.dialect, inserted);
  });
}
