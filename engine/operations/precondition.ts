import type { Kysely } from 'kysely';
import { etagOf, ifMatchHolds, preconditionFailed, type Condition, type EntityTag } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import type { Stored } from '../records.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';

/**
 * A write's `If-Match` against the record it read: 412 when no tag is the record's. Answers the
 * version the write must still find (its compare-and-set), or undefined when there is no
 * condition to keep (no header, or `*`: the record exists, which the write checks anyway).
 */
export function expectedVersion(current: Stored, ifMatch: Condition | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const { version } = current;
  if (!ifMatchHolds(ifMatch, etagOf(version))) throw preconditionFailed(etagOf(version));
  return ifMatch.any ? undefined : version;
}

/** A compare-and-set that found the record at another version: 412 with the tag it has now (404 if it went). */
export async function lostRace(db: Kysely<any>, ctx: OperationContext, resource: Resource, id: number): Promise<never> {
  const now = await loadRecord(db, ctx, resource, id);
  if (!now) throw notFound(resource.name, id);
  throw preconditionFailed(etagOf(now.version));
}

/**
 * A write that wrote no live row: with the version it required, 412 with the tag the record has
 * now (lostRace, 404 if it went); without one, the record went: 404.
 */
export async function notWritten(
  db: Kysely<any>,
  ctx: OperationContext,
  resource: Resource,
  id: number,
  version: number | undefined,
): Promise<never> {
  if (version !== undefined) return lostRace(db, ctx, resource, id);
  throw notFound(resource.name, id);
}

/**
 * A write's If-Match as the compare-and-set of a write that does not read its record first: none
 * (undefined: no header, or `*`, the record exists, which the write checks anyway), the version
 * of one strong tag of ours (`"7"`), or null when the condition needs the record read (weak tags
 * never match a write's, several need the record to say which holds, and a tag that is no
 * version of ours never matches: the read answers those, 412 or 404).
 */
export const unreadVersion = (ifMatch: Condition | undefined): number | undefined | null =>
  ifMatch === undefined || ifMatch.any ? undefined : versionOfOnlyTag(ifMatch.tags);

function versionOfOnlyTag(tags: readonly EntityTag[]): number | null {
  const [tag] = tags;
  if (tags.length !== 1 || tag!.weak) return null;
  const version = /^"([1-9]\d{0,14})"$/.exec(tag!.opaque)?.[1];
  return version === undefined ? null : Number(version);
}
