import type { Kysely } from 'kysely';
import { EngineError, type ProblemItem } from '../errors.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import { isPlainObject } from '../validate/body.ts';
import { loadRecord, type OperationContext } from './context.ts';
import type { LinkCheck } from '../sql/record-writes.ts';

/** Every parent link in the values must name a live parent record. */
export async function parentLinkProblems(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  values: ApiRecord,
): Promise<ProblemItem[]> {
  const problems: ProblemItem[] = [];
  for (const [parentName, field] of resource.parents) {
    const id = values[field];
    if (id === null || id === undefined) continue;
    const parent = ctx.registry.get(parentName)!;
    if (!(await loadRecord(db, ctx, parent, id as number))) problems.push({ field, message: `names no live ${parentName} record` });
  }
  return problems;
}

/** The parent links a write's values name (not null), as its statement checks them (LinkCheck). */
export const linksNamed = (resource: Resource, values: ApiRecord): LinkCheck[] =>
  [...resource.parents]
    .filter(([, column]) => values[column] !== undefined && values[column] !== null)
    .map(([table, column]) => ({ table, column }));

/** The parent links a body names with an integer, checked even when other fields are invalid. */
export function sentLinks(resource: Resource, body: unknown): ApiRecord {
  if (!isPlainObject(body)) return {};
  return Object.fromEntries([...resource.parents.values()].filter((f) => Number.isSafeInteger(body[f])).map((f) => [f, body[f]]));
}

export function throwIfAny(problems: ProblemItem[]): void {
  if (problems.length) throw new EngineError('invalid-body', 'The body is not a valid record: see errors.', problems);
}

/** Only the writable fields of a parsed body (read-only ones were only there to be compared). */
export function writableValues(resource: Resource, body: ApiRecord): ApiRecord {
  return Object.fromEntries(resource.writable.filter((n) => body[n] !== undefined).map((n) => [n, body[n]]));
}
