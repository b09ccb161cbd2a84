import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { SqlFlavour } from '../dialects/types.ts';
import { OPERATOR_RULES, type Operator } from '../query/operators.ts';
import type { Filter } from '../query/resolve.ts';

type EB = ExpressionBuilder<any, any>;
type Compile = (eb: EB, f: Omit<Filter, 'params'>, values: unknown[], d: SqlFlavour) => Expression<SqlBool>;

const single = (values: unknown[]) => values.length === 1;

/**
 * `a or b or ...` as a balanced tree: SQLite parses a flat chain as deep as it is long and
 * refuses expressions deeper than 1,000, which a request line of repeated patterns can reach.
 */
function anyOf(eb: EB, parts: Expression<SqlBool>[]): Expression<SqlBool> {
  if (parts.length <= 2) return eb.or(parts);
  const half = parts.length >> 1;
  return eb.or([anyOf(eb, parts.slice(0, half)), anyOf(eb, parts.slice(half))]);
}

/** One compile function per operator; column names come from the resolved definition only. */
const COMPILE: Record<Operator, Compile> = {
  eq: (eb, f, vs) => (single(vs) ? eb(f.field, '=', vs[0]) : eb(f.field, 'in', vs)),
  // `ne` matches empty values too: null is "not equal to 2".
  ne: (eb, f, vs) => eb.or([single(vs) ? eb(f.field, '<>', vs[0]) : eb(f.field, 'not in', vs), eb(f.field, 'is', null)]),
  gt: (eb, f, vs) => eb(f.field, '>', vs[0]),
  gte: (eb, f, vs) => eb(f.field, '>=', vs[0]),
  lt: (eb, f, vs) => eb(f.field, '<', vs[0]),
  lte: (eb, f, vs) => eb(f.field, '<=', vs[0]),
  like: (eb, f, vs, d) =>
    anyOf(
      eb,
      vs.map((p) => d.like(eb.ref(f.field), String(p))),
    ),
  ilike: (eb, f, vs, d) =>
    anyOf(
      eb,
      vs.map((p) => d.ilike(eb.ref(f.field), String(p))),
    ),
  null: (eb, f, vs) => (vs[0] === true ? eb(f.field, 'is', null) : eb(f.field, 'is not', null)),
};

/** What a search's condition reads besides its filters. */
export interface WhereOptions {
  readonly includeDeleted: boolean;
  /** A child list: the child's field that links to its parent, and the parent's id. */
  readonly scope?: { readonly field: string; readonly id: number } | undefined;
}

/** The conjunction of the filters, plus the soft-delete rule and the parent link. */
export function compileWhere(
  filters: readonly Omit<Filter, 'params'>[],
  flavour: SqlFlavour,
  opts: WhereOptions,
): (eb: EB) => Expression<SqlBool> {
  const { includeDeleted, scope } = opts;
  return (eb) => {
    const parts: Expression<SqlBool>[] = [];
    if (scope) parts.push(eb(scope.field, '=', scope.id));
    if (!includeDeleted) parts.push(eb('deleted', '=', flavour.encode('boolean', false)));
    for (const f of filters) {
      const values = OPERATOR_RULES[f.op].operand === 'value' ? f.values.map((v) => flavour.encode(f.kind, v)) : [...f.values];
      parts.push(COMPILE[f.op](eb, f, values, flavour));
    }
    return eb.and(parts);
  };
}
