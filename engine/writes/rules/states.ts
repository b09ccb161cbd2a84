import { EngineError, errorOf } from '../../errors.ts';
import { movesInto, stateFields } from '../../states/machine.ts';
import { checkTransition, holdsOneOf } from '../../states/transition.ts';
import type { RowCondition } from '../conditions.ts';
import type { WriteRule } from './rule.ts';

/**
 * SPEC 11: a state written is the record's own, or one it may move to, by a mover who may enter
 * it, with the fields it requires set. The declaration is the field's `states` and `enter`
 * (checked by engine/define.ts); `refusal` is checkTransition, which says which (409, 403, 422).
 */
export const statesRule: WriteRule = {
  name: 'states',
  conditions: (resource, { values, mover }) => {
    if (values === undefined) return [];
    return stateFields(resource).flatMap(([field, f]): RowCondition[] => {
      const to = values[field];
      if (typeof to !== 'string') return [];
      const rule = f.enter?.[to];
      const requires = rule?.requires ?? [];
      const entered =
        (rule?.roles === undefined || holdsOneOf(mover, rule.roles)) &&
        requires.every((r) => !(r in values) || (values[r] !== null && values[r] !== undefined));
      const from = entered ? movesInto(f, to) : [];
      const stay: RowCondition = { is: 'eq', field, value: to };
      if (from.length === 0) return [stay];
      // A field `to` requires that the write leaves as it is must be set already.
      const set = requires.filter((r) => !(r in values)).map((r): RowCondition => ({ is: 'set', field: r }));
      return [{ is: 'any', of: [stay, { is: 'all', of: [{ is: 'in', field, values: from }, ...set] }] }];
    });
  },
  refusal: (resource, { values, mover }, current) =>
    errorOf(checkTransition(resource, current.record, Object.assign({}, current.record, values), mover)) ??
    new EngineError('internal', 'A state check failed that checkTransition allows.'),
};
