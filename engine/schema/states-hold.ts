import type { ColumnSpec } from './table.ts';
import type { TableFacts } from './facts.ts';

/**
 * SPEC 11's rule for migrations: a field given `states` while rows hold values that are not among
 * them is refused. Fields cannot declare states yet (a later issue), so nothing is refused here;
 * the plan calls this for every field already, so the rule lands in this one place: ask the
 * column's distinct values (a Question in facts.ts) and name each one the states do not list.
 */
export function statesHold(_column: ColumnSpec, _facts: TableFacts): string[] {
  return [];
}
