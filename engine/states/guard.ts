import type { Dialect } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import type { ApiRecord } from '../records.ts';
import { stateFields } from './machine.ts';

/**
 * The states a record was read in, as the UPDATE's condition: a move checked against them is
 * written only if no other write moved the record since (two moves from one state cannot both
 * pass where one forbids the other). Empty for a resource without states.
 */
export const statesAsRead = (resource: Resource, dialect: Dialect, current: ApiRecord): Record<string, unknown> =>
  Object.fromEntries(stateFields(resource).map(([n]) => [n, dialect.encode('string', current[n])]));
