import type { Kysely, RawBuilder } from 'kysely';
import type { ListPlaceholder } from '../compiled-queries.ts';
import { databaseOf } from '../dialects/index.ts';
import type { DatabaseKind, TenantDb } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import { all, conditionSql, conditionTemplate, conditionValues, type RowCondition } from '../writes/conditions.ts';

/**
 * What decides a write's SQL, an INSERT's or an UPDATE's (record-inserts.ts, record-writes.ts):
 * the tenant's schema, the collection, the columns written, and its row conditions without
 * their values (conditionTemplate), part of each compiled statement's shape.
 */
export interface TableShape {
  readonly schema: string | undefined;
  readonly resource: Resource;
  readonly columns: readonly string[];
  /** The plan's conditions' template; none: undefined. */
  readonly where: RowCondition | undefined;
}

/** A plan's table shape, and its conditions' values as the statement's parameters, in conditionSql's order. */
export function tableShapeOf(
  t: Pick<TenantDb, 'schema' | 'flavour'>,
  resource: Resource,
  columns: readonly string[],
  conditions: readonly RowCondition[],
): { shape: TableShape; where: unknown[] } {
  const condition = conditions.length ? all(conditions) : undefined;
  return {
    shape: { schema: t.schema, resource, columns, where: condition && conditionTemplate(condition) },
    where: condition ? conditionValues(condition, resource, t.flavour) : [],
  };
}

/** The database a compiled statement is built for: its kind, from the handle, and the tenant's schema, from the shape. */
export const setupOf = (db: Kysely<any>, shape: Pick<TableShape, 'schema'>): DatabaseKind & { readonly schema: string | undefined } => ({
  ...databaseOf(db),
  schema: shape.schema,
});

/** The shape's conditions as SQL on the row, their values the placeholders in order; undefined without conditions. */
export function whereSql(db: Kysely<any>, shape: TableShape, values: ListPlaceholder): RawBuilder<boolean> | undefined {
  if (!shape.where) return undefined;
  let w = 0;
  return conditionSql(setupOf(db, shape), shape.resource, shape.where, () => values.at(w++));
}
