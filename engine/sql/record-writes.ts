import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { VERSION_COLUMN } from '../schema/table.ts';
import { compiledStatement, type ListPlaceholder } from '../compiled-queries.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EVENT_COLUMNS } from '../events/event-sql.ts';
import { eventParentSql } from '../events/event-parent.ts';
import { tableRef } from '../dialects/table-ref.ts';
import { EVENTS_TABLE } from '../events/event-log.ts';
import { recordJsonOf } from './records-json.ts';
import { DELETED_FIELDS, type ChangePlan } from '../writes/plan.ts';
import { setupOf, tableShapeOf, whereSql, type TableShape } from './table-shape.ts';

/**
 * A record's UPDATE of its plan (engine/writes/plan.ts: a PATCH, PUT or soft delete), alone or
 * with its event in the same statement, returning the whole row. Compiled once per shape (the
 * table, the columns written, the conditions' template), so building the query is paid once
 * per shape, not per write.
 */

type Row = Record<string, unknown>;

/** An UPDATE's values: the row's in column order, the record's id, the conditions' (conditionValues). */
interface UpdateValues {
  readonly row: readonly unknown[];
  readonly id: number;
  readonly where: readonly unknown[];
}

/** The columns' placeholders as a row object, for a builder's set(). */
const setOf = (columns: readonly string[], row: ListPlaceholder) => Object.fromEntries(columns.map((c, i) => [c, row.at(i)]));

function shapeOf(t: Pick<TenantDb, 'schema' | 'flavour'>, plan: ChangePlan): { shape: TableShape; values: UpdateValues } {
  const { shape, where } = tableShapeOf(t, plan.resource, Object.keys(plan.row), plan.conditions);
  return { shape, values: { row: Object.values(plan.row), id: plan.id, where } };
}

/**
 * The plan's UPDATE and its event in one statement (Supports.eventInStatement: PostgreSQL's
 * data-modifying CTEs), the event's record written from the updated row and its `changed` (the
 * collection's own fields whose value the UPDATE changed) from that row against the one it
 * replaced: atomic without a transaction. The event keeps the row the UPDATE replaced
 * (before_row), read under the row's lock in the same statement. A live row only, written only
 * where the plan's conditions hold, checked on the row it locks; no row: the caller reads to
 * say why. A soft delete's event names `deleted`.
 */
export function updateWithEventQuery(t: TenantDb, db: Kysely<any>, plan: ChangePlan): CompiledQuery<Row> {
  const { shape, values } = shapeOf(t, plan);
  return updateWithEvent.query(
    db,
    Object.assign(shape, { op: plan.kind }),
    Object.assign(values, { at: plan.event.at, user: plan.event.user }),
  );
}

const updateWithEvent = compiledStatement<
  TableShape & { readonly op: ChangePlan['kind'] },
  UpdateValues & { readonly at: string; readonly user: string | null },
  Row
>(
  'record update with event',
  (db, shape, p) => {
    const { resource, columns, op } = shape;
    const table = resource.name;
    const t = setupOf(db, shape);
    const set: Record<string, unknown> = Object.assign(setOf(columns, p.row), { [VERSION_COLUMN]: nextVersion });
    // `updated` after the stamp of the row replaced, as nextTimestamp, from the row as the lock
    // finds it: a write that did not read the record first (update.ts) has no stamp to follow.
    if ('updated' in set) set.updated = sql`greatest(cast(${set.updated} as timestamptz), updated + interval '1 millisecond')`;
    // After `before_write` has locked the row: it is then the row the UPDATE replaces.
    const update = db
      .updateTable(table)
      .set(set)
      .where('id', '=', p.id)
      .where(sql<boolean>`exists (select 1 from before_write)`)
      .returningAll();
    // Each changed field as `,"name"`, the first comma cut: a chain of ||, not concat_ws (at most 100 arguments).
    const changed = sql.join(
      Object.keys(resource.definition.fields).map(
        (name) =>
          sql`coalesce(case when ${sql.ref(`before_write.${name}`)} is distinct from ${sql.ref(`written.${name}`)} then ${sql.lit(`,${JSON.stringify(name)}`)} end, '')`,
      ),
      sql` || `,
    );
    // What the plan asks of the row (If-Match, engine/writes/rules/, a version read), its values the statement's parameters.
    const where = whereSql(db, shape, p.where);
    const keeps = where ? sql` and ${where}` : sql``;
    // `before_write` locks the row (FOR UPDATE) and reads it as it is once the lock is held: the row the
    // UPDATE replaces, whatever committed since the statement began (its `changed`, and the
    // event's before_row). Without the lock, a write committed meanwhile would be missed by
    // both; a compare-and-set instead made writes of one row retry each other, hundreds of
    // times a second under load (BENCHMARKS.md, "Lazy snapshots"). A live row only: one deleted
    // meanwhile is not written (no row: the caller says why, 404 or through its read).
    // The checks are the lock's WHERE: under a write committed meanwhile, PostgreSQL checks it
    // again on the row as that write left it, once the lock is taken.
    return sql<Row>`with before_write as (select * from ${tableRef(t, table)} where id = ${p.id} and deleted = false${keeps} for update),
        written as (${update}),
        event as (insert into ${tableRef(t, EVENTS_TABLE)} ${EVENT_COLUMNS}
          select cast(${p.at} as text), ${sql.lit(table)}, written.id, ${sql.lit(op)}, ${op === 'delete' ? sql.lit(DELETE_CHANGED) : sql`'[' || substr(${changed}, 2) || ']'`},
            ${recordJsonOf(t.flavour, resource, 'written')}, cast(${p.user} as text), ${t.flavour.rowJson('before_write', resource.fieldNames)},
            ${eventParentSql(resource, 'written')}
          from written left join before_write on true)
        select * from written`;
  },
  500,
);

const DELETE_CHANGED = JSON.stringify(DELETED_FIELDS);

/** Every write advances the row's version in the database itself, so no two writes can leave the same one. */
export const nextVersion = sql`${sql.ref(VERSION_COLUMN)} + 1`;

/**
 * The plan's UPDATE, advancing the row's version, in a transaction that read the row (under its
 * lock where the database has row locks): written only where the plan's conditions hold, the
 * version read for a compare-and-set, so two writes that read the same version cannot both
 * succeed. No row: the conditions did not hold.
 */
export function updateQuery(t: TenantDb, db: Kysely<any>, plan: ChangePlan): CompiledQuery<Row> {
  const { shape, values } = shapeOf(t, plan);
  return update.query(db, shape, values);
}

const update = compiledStatement<TableShape, UpdateValues, Row>(
  'record update',
  (db, shape, p) => {
    const q = db
      .updateTable(shape.resource.name)
      .set(Object.assign(setOf(shape.columns, p.row), { [VERSION_COLUMN]: nextVersion }))
      .where('id', '=', p.id);
    const where = whereSql(db, shape, p.where);
    return (where ? q.where(where) : q).returningAll();
  },
  500,
);
