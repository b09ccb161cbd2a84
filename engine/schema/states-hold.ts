import type { ColumnSpec } from './table.ts';
import type { Question } from './facts.ts';

/**
 * SPEC 11's rule for migrations: a field given `states` while rows hold values that are not among
 * them is refused. Fields cannot declare states yet (a later issue), so there is nothing to ask;
 * the plan asks this for every field already, so the rule lands in this one place: a question
 * (facts.ts) whether the column `at` holds a value the states do not list, and the refusal naming
 * the states.
 */
export function statesHold(_column: ColumnSpec, _at: string): { question: Question; refusal: string }[] {
  return [];
}
