import { EngineError, type ProblemItem } from '../../errors.ts';
import type { Stored } from '../../records.ts';
import type { Resource } from '../../registry.ts';
import { all, holds, type RowCondition } from '../conditions.ts';
import { frozenRule } from './frozen.ts';
import { readOnlyRule } from './read-only.ts';
import type { UpdateWrite, WriteRule } from './rule.ts';
import { statesRule } from './states.ts';

/** Every rule a PATCH or PUT keeps, in the order their refusals are reported. */
export const UPDATE_RULES: readonly WriteRule[] = [readOnlyRule, frozenRule, statesRule];

/** What the row must hold for the write to be written: every rule's conditions. */
export const updateConditions = (resource: Resource, write: UpdateWrite): RowCondition[] =>
  UPDATE_RULES.flatMap((rule) => rule.conditions(resource, write));

/**
 * The rules a record read fails, judged by their conditions (the same a statement checks):
 * their problems, reported with the body's, and the first error of its own, thrown after them.
 */
export function refusals(resource: Resource, write: UpdateWrite, current: Stored): { problems: ProblemItem[]; error?: EngineError } {
  const problems: ProblemItem[] = [];
  let error: EngineError | undefined;
  for (const rule of UPDATE_RULES) {
    if (holds(all(rule.conditions(resource, write)), current)) continue;
    const refused = rule.refusal(resource, write, current);
    if (refused instanceof EngineError) error ??= refused;
    else problems.push(...refused);
  }
  return error ? { problems, error } : { problems };
}
