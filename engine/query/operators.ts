import type { FieldKind } from '../define.ts';

/** Every filter operator; per-operator tables are Records over this tuple so none is forgotten. */
export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'null'] as const;
export type Operator = (typeof OPERATORS)[number];

export const isOperator = (s: string): s is Operator => (OPERATORS as readonly string[]).includes(s);

/** How repeats of one property and operator combine. */
export type RepeatRule = 'any-of' | 'none-of' | 'once';

const ALL_KINDS: readonly FieldKind[] = ['integer', 'string', 'date', 'timestamp', 'boolean'];
const ORDERED: readonly FieldKind[] = ['integer', 'string', 'date', 'timestamp'];

export const OPERATOR_RULES: Record<Operator, { kinds: readonly FieldKind[]; repeat: RepeatRule; meaning: string }> = {
  eq: { kinds: ALL_KINDS, repeat: 'any-of', meaning: 'equal to (repeat for any of several values)' },
  ne: { kinds: ALL_KINDS, repeat: 'none-of', meaning: 'not equal to, empty values included (repeat for none of several)' },
  gt: { kinds: ORDERED, repeat: 'once', meaning: 'greater than' },
  gte: { kinds: ORDERED, repeat: 'once', meaning: 'greater than or equal to' },
  lt: { kinds: ORDERED, repeat: 'once', meaning: 'less than' },
  lte: { kinds: ORDERED, repeat: 'once', meaning: 'less than or equal to' },
  like: { kinds: ['string'], repeat: 'any-of', meaning: 'case-sensitive pattern: % any run, _ one character, \\ escapes' },
  ilike: { kinds: ['string'], repeat: 'any-of', meaning: 'like, ignoring ASCII case' },
  null: { kinds: ALL_KINDS, repeat: 'once', meaning: 'empty (empty value or true) or not empty (false)' },
};

/** Operators allowed on a field kind, for error messages and the OpenAPI document. */
export const operatorsFor = (kind: FieldKind): Operator[] => OPERATORS.filter((o) => OPERATOR_RULES[o].kinds.includes(kind));
