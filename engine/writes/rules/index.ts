import { EngineError, type Result } from '../../errors.ts';
import type { Stored } from '../../records.ts';
import type { Resource } from '../../registry.ts';
import { all, holds, type Facts, type RowCondition } from '../conditions.ts';
import { frozenRule } from './frozen.ts';
import { parentLinksRule } from './parent-links.ts';
import { readOnlyRule } from './read-only.ts';
import type { UpdateWrite, WriteRule } from './rule.ts';
import { statesRule } from './states.ts';

/** Every rule a PATCH or PUT keeps, in the order their refusals are reported. */
export const UPDATE_RULES: readonly WriteRule[] = [readOnlyRule, frozenRule, parentLinksRule, statesRule];

/** What the row must hold for the write to be written: every rule's conditions. */
export const updateConditions = (resource: Resource, write: UpdateWrite): RowCondition[] =>
  UPDATE_RULES.flatMap((rule) => rule.conditions(resource, write));

/**
 * Whether a record read may be written, judged by the rules' conditions (the same a statement
 * checks; `facts`: factsFor's, when they name records): the record, or the refusal. The rules' `invalid-body` problems are one error, to be
 * reported with the body's (`bodyProblemsOf`); another error (states: 409, 403) only without them.
 */
export function refusals(resource: Resource, write: UpdateWrite, current: Stored, facts?: Facts): Result<Stored> {
  const refused = UPDATE_RULES.filter((rule) => !holds(all(rule.conditions(resource, write)), current, facts)).map((rule) =>
    rule.refusal(resource, write, current, facts),
  );
  if (refused.length === 0) return { value: current };
  const invalid = refused.filter((error) => error.code === 'invalid-body');
  // One rule's refusal keeps its own detail; several are reported together.
  if (invalid.length === 1) return { error: invalid[0]! };
  const problems = bodyProblemsOf(...invalid.map((error) => ({ error })));
  return {
    error: problems.length ? new EngineError('invalid-body', 'The body is not a valid record: see errors.', problems) : refused[0]!,
  };
}

/** The problems a refusal reports with the body's: an `invalid-body` error's; none of another error. */
export const bodyProblemsOf = (...results: readonly Result<unknown>[]) =>
  results.flatMap((r) => ('error' in r && r.error.code === 'invalid-body' ? r.error.errors : []));
