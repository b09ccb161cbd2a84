import type { Kysely } from 'kysely';
import { valueOf } from '../errors.ts';
import { etagOf, preconditionFailed, type Condition } from '../http/conditional.ts';
import type { Resource } from '../registry.ts';
import type { Stored } from '../records.ts';
import { loadRecord, notFound, type OperationContext } from './context.ts';
import { ifMatchCondition, ifMatchHeld } from '../writes/rules/if-match.ts';

/**
 * A write's `If-Match` against the record it read (engine/writes/rules/if-match.ts): 412 when no
 * tag is the record's. Answers the version the write must still find (its compare-and-set), or
 * undefined when there is no condition to keep (no header, or `*`: the record exists, which the
 * write checks anyway).
 */
export function expectedVersion(current: Stored, ifMatch: Condition | undefined): number | undefined {
  const condition = ifMatchCondition(ifMatch);
  if (condition === undefined) return undefined;
  return valueOf(ifMatchHeld(condition, current)).version;
}
