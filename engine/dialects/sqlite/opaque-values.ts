import {
  BinaryOperationNode,
  ExpressionWrapper,
  OperationNodeTransformer,
  PrimitiveValueListNode,
  RawNode,
  ValueListNode,
  ValueNode,
  type Expression,
} from 'kysely';

/** `+?`: the same parameter, the same value, but not a constant the query planner looks at. */
const opaque = (value: ValueNode) => RawNode.create(['+', ''], [value]);

class Opaque extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const n = super.transformBinaryOperation(node);
    const right = n.rightOperand;
    if (ValueNode.is(right) && !right.immediate && right.value !== null)
      return BinaryOperationNode.create(n.leftOperand, n.operator, opaque(right));
    if (PrimitiveValueListNode.is(right))
      return BinaryOperationNode.create(
        n.leftOperand,
        n.operator,
        ValueListNode.create(right.values.map((v) => opaque(ValueNode.create(v)))),
      );
    return n;
  }
}

/**
 * The same condition with the right-hand values of its comparisons (`=`, `<`, `in`, ...) written
 * `+?` instead of `?`: still parameters, compared the same way (unary plus changes neither the
 * value nor its affinity), and still answered from the same indexes, but the planner plans
 * without them. SQLite built with STAT4 (better-sqlite3 is) otherwise marks a statement whose
 * parameters meet a sampled index to be prepared again before every run. Values inside raw
 * SQL that are not compared (LIKE and GLOB patterns, whose prefix the planner needs) are left
 * as they are. SQLite's hot statements (a search's snapshot, a cursor's page read) write their
 * conditions so (snapshot-store.ts); PostgreSQL chooses between generic and custom plans itself.
 */
export function opaqueValues<T>(e: Expression<T>): Expression<T> {
  return new ExpressionWrapper<any, any, T>(new Opaque().transformNode(e.toOperationNode()));
}
