import { FIELD_KINDS, type FieldKind } from '../define.ts';

/** Every filter operator; per-operator tables are Records over this tuple so none is forgotten. */
export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'null'] as const;
export type Operator = (typeof OPERATORS)[number];

export const isOperator = (s: string): s is Operator => (OPERATORS as readonly string[]).includes(s);

/** How repeats of one property and operator combine. */
export type RepeatRule = 'any-of' | 'none-of' | 'once';

/**
 * What an operator compares with: a value of the field's kind (encoded for its column), a LIKE
 * pattern (text, whatever the kind), or whether the field is empty (a boolean).
 */
export type Operand = 'value' | 'pattern' | 'presence';

interface OperatorRule {
  readonly kinds: readonly FieldKind[];
  readonly repeat: RepeatRule;
  readonly operand: Operand;
  readonly meaning: string;
  /** What to write instead of a repeat, where repeating is refused and there is another way. */
  readonly instead?: string;
}

const ORDERED: readonly FieldKind[] = ['integer', 'number', 'string', 'date', 'timestamp'];
const BOUNDS = 'write two bounds with two different operators';

export const OPERATOR_RULES: Record<Operator, OperatorRule> = {
  eq: { kinds: FIELD_KINDS, repeat: 'any-of', operand: 'value', meaning: 'equal to (repeat for any of several values)' },
  ne: {
    kinds: FIELD_KINDS,
    repeat: 'none-of',
    operand: 'value',
    meaning: 'not equal to, empty values included (repeat for none of several)',
  },
  gt: { kinds: ORDERED, repeat: 'once', operand: 'value', meaning: 'greater than', instead: BOUNDS },
  gte: { kinds: ORDERED, repeat: 'once', operand: 'value', meaning: 'greater than or equal to', instead: BOUNDS },
  lt: { kinds: ORDERED, repeat: 'once', operand: 'value', meaning: 'less than', instead: BOUNDS },
  lte: { kinds: ORDERED, repeat: 'once', operand: 'value', meaning: 'less than or equal to', instead: BOUNDS },
  like: {
    kinds: ['string'],
    repeat: 'any-of',
    operand: 'pattern',
    meaning: 'case-sensitive pattern: % any run, _ one character, \\ escapes',
  },
  ilike: { kinds: ['string'], repeat: 'any-of', operand: 'pattern', meaning: 'like, ignoring ASCII case' },
  null: { kinds: FIELD_KINDS, repeat: 'once', operand: 'presence', meaning: 'empty (empty value or true) or not empty (false)' },
};

/** Operators allowed on a field kind, for error messages and the OpenAPI document. */
export const operatorsFor = (kind: FieldKind): Operator[] => OPERATORS.filter((o) => OPERATOR_RULES[o].kinds.includes(kind));
