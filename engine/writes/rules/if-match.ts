import { etagOf, preconditionFailed, type Condition, type EntityTag } from '../../http/conditional.ts';
import type { Result } from '../../errors.ts';
import type { Stored } from '../../records.ts';
import { any, holds, NEVER, type RowCondition } from '../conditions.ts';

/**
 * `If-Match` as what it asks of the row, declared once: the row is at the version of one of the
 * strong tags of ours (weak tags never match a write's, RFC 9110 13.1.1; a tag that is no version
 * of ours matches none: NEVER). Undefined when it asks nothing the write does not check anyway
 * (no header, or `*`: the record exists). A write that reads its record judges it (`ifMatchHolds`
 * in JavaScript), one that does not puts it in its statement's WHERE.
 */
export function ifMatchCondition(ifMatch: Condition | undefined): RowCondition | undefined {
  if (ifMatch === undefined || ifMatch.any) return undefined;
  const versions = [...new Set(ifMatch.tags.flatMap(versionOfTag))];
  return versions.length === 0 ? NEVER : any(versions.map((value): RowCondition => ({ is: 'version', value })));
}

/** The version a strong tag of ours names (etagOf's form: `"7"`); none for any other tag. */
function versionOfTag(tag: EntityTag): number[] {
  const version = tag.weak ? undefined : /^"([1-9]\d{0,14})"$/.exec(tag.opaque)?.[1];
  return version === undefined ? [] : [Number(version)];
}

/** A record read that holds the write's If-Match; else its refusal, 412 with the record's tag. */
export const ifMatchHeld = (condition: RowCondition, current: Stored): Result<Stored> =>
  holds(condition, current) ? { value: current } : { error: preconditionFailed(etagOf(current.version)) };
