import type { ColumnSpec } from './table.ts';
import type { Question } from './facts.ts';

/**
 * SPEC 12's rule for states: a field given `states` while rows hold values that are not among
 * them is refused (the plan names some of the values found). Nulls are the null check's to refuse.
 * Adding a state or a transition only widens what rows may hold: nothing to refuse.
 */
export function statesHold(column: ColumnSpec, at: string): { question: Question; refusal: string }[] {
  const states = column.rules?.states;
  if (states === undefined) return [];
  return [
    {
      question: { test: 'outside', column: at, values: states },
      refusal: `has states ${states.join(', ')}, but rows hold other values in column ${at}`,
    },
  ];
}
