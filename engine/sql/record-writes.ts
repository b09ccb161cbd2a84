import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { VERSION_COLUMN } from '../schema/table.ts';
import { compiledQueriesByKey } from '../compiled-queries.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EVENT_COLUMNS } from '../events/event-sql.ts';
import { eventParentSql } from '../events/event-parent.ts';
import { tableRef } from '../dialects/table-ref.ts';
import type { Resource } from '../registry.ts';
import { EVENTS_TABLE } from '../events/event-log.ts';
import { recordJsonOf } from './records-json.ts';
import { all, conditionShape, conditionSql, conditionValues, type RowCondition } from '../writes/conditions.ts';

/**
 * A record's INSERT and UPDATE, compiled once per shape: the table and the columns written
 * (a PATCH writes the fields it was sent), so building the query is paid once per shape, not
 * per write. Both return the whole row.
 */
export const queries = compiledQueriesByKey(500);
export const writes = <R>(db: Kysely<any>, key: string, build: (...p: any[]) => CompiledQuery<R>, ...args: readonly unknown[]) =>
  db.executeQuery<R>(queries(db, key, build, ...args));

/** The columns' placeholders as a row object, for a builder's values() or set(). */
export const rowOf = (columns: readonly string[], placeholders: readonly unknown[]) =>
  Object.fromEntries(columns.map((c, i) => [c, placeholders[i]]));

/**
 * updateRow and the record's update event in one statement (Supports.eventInStatement: PostgreSQL's
 * data-modifying CTEs), the event's record written from the updated row and its `changed` (the
 * collection's own fields whose value the UPDATE changed) from that row against the one it
 * replaced: a PATCH or PUT is this one statement (after a read when its checks need the record),
 * atomic without a transaction. The event keeps the row the UPDATE replaced (before_row), read
 * under the row's lock in the same statement. Undefined when no live row was written. A soft
 * delete (`op`) is this statement too, `deleted` among the row's values, its `changed` that one.
 * With `conditions`, the row is written only where they hold, checked on the row it locks: a
 * write's rules made by its statement, without reading the record first (no row: the caller's
 * read says which failed).
 */
export async function updateRowWithEvent(
  t: TenantDb,
  db: Kysely<any>,
  resource: Resource,
  id: number,
  row: Record<string, unknown>,
  expectedVersion: number | undefined,
  event: { readonly at: string; readonly user: string | null; readonly op?: 'update' | 'delete' },
  conditions: readonly RowCondition[] = [],
): Promise<Record<string, unknown> | undefined> {
  const table = resource.name;
  const columns = Object.keys(row);
  const cas = expectedVersion !== undefined;
  const op = event.op ?? 'update';
  const condition = conditions.length ? all(conditions) : undefined;
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `${op}+event\0${table}\0${cas}\0${columns.join('\0')}\0where\0${condition ? conditionShape(condition) : ''}`,
    (...p) => {
      const [rowId, version, at, user, ...conditionParams] = p.slice(columns.length);
      const set = Object.assign(rowOf(columns, p), { [VERSION_COLUMN]: nextVersion });
      // `updated` after the stamp of the row replaced, as nextTimestamp, from the row as the lock
      // finds it: a write that did not read the record first (update.ts) has no stamp to follow.
      if ('updated' in set) set.updated = sql`greatest(cast(${set.updated} as timestamptz), updated + interval '1 millisecond')`;
      // After `before_write` has locked the row: it is then the row the UPDATE replaces.
      const q = db
        .updateTable(table)
        .set(set)
        .where('id', '=', rowId)
        .where(sql<boolean>`exists (select 1 from before_write)`);
      const update = (cas ? q.where(VERSION_COLUMN, '=', version) : q).returningAll();
      // Each changed field as `,"name"`, the first comma cut: a chain of ||, not concat_ws (at most 100 arguments).
      const changed = sql.join(
        Object.keys(resource.definition.fields).map(
          (name) =>
            sql`coalesce(case when ${sql.ref(`before_write.${name}`)} is distinct from ${sql.ref(`written.${name}`)} then ${sql.lit(`,${JSON.stringify(name)}`)} end, '')`,
        ),
        sql` || `,
      );
      // What the write's rules ask of the row (engine/writes/rules/), its values the statement's parameters.
      const keeps = condition ? sql` and ${conditionSql(t, resource, condition, () => conditionParams.shift())}` : sql``;
      // `before_write` locks the row (FOR UPDATE) and reads it as it is once the lock is held: the row the
      // UPDATE replaces, whatever committed since the statement began (its `changed`, and the
      // event's before_row). Without the lock, a write committed meanwhile would be missed by
      // both; a compare-and-set instead made writes of one row retry each other, hundreds of
      // times a second under load (BENCHMARKS.md, "Lazy snapshots"). A live row only: one deleted
      // meanwhile is not written (no row: the caller says why, 404 or through its read).
      // The checks are the lock's WHERE: under a write committed meanwhile, PostgreSQL checks it
      // again on the row as that write left it, once the lock is taken.
      return sql<
        Record<string, unknown>
      >`with before_write as (select * from ${tableRef(t, table)} where id = ${rowId} and deleted = false${keeps} for update),
        written as (${update}),
        event as (insert into ${tableRef(t, EVENTS_TABLE)} ${EVENT_COLUMNS}
          select cast(${at} as text), ${sql.lit(table)}, written.id, ${sql.lit(op)}, ${op === 'delete' ? sql.lit(DELETE_CHANGED) : sql`'[' || substr(${changed}, 2) || ']'`},
            ${recordJsonOf(t.flavour, resource, 'written')}, cast(${user} as text), ${t.flavour.rowJson('before_write', resource.fieldNames)},
            ${eventParentSql(resource, 'written')}
          from written left join before_write on true)
        select * from written`.compile(db);
    },
    ...columns.map((c) => row[c]),
    id,
    cas ? expectedVersion : null,
    event.at,
    event.user,
    ...(condition ? conditionValues(condition, resource, t.flavour) : []),
  );
  return rows[0];
}

/** A soft delete's `changed`, as engine/operations/events.ts names it. */
const DELETE_CHANGED = JSON.stringify(['deleted']);

/** Every write advances the row's version in the database itself, so no two writes can leave the same one. */
export const nextVersion = sql`${sql.ref(VERSION_COLUMN)} + 1`;

/**
 * Updates the row and advances its version. With `expectedVersion`, a compare-and-set: only a
 * row still at that version is written (none else: undefined), in the UPDATE itself, so two
 * writes that read the same version cannot both succeed.
 */
export async function updateRow(
  db: Kysely<any>,
  table: string,
  id: number,
  row: Record<string, unknown>,
  expectedVersion?: number,
): Promise<Record<string, unknown> | undefined> {
  const columns = Object.keys(row);
  const cas = expectedVersion !== undefined;
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `update\0${table}\0${cas}\0${columns.join('\0')}`,
    (...p) => {
      const set = Object.assign(rowOf(columns, p), { [VERSION_COLUMN]: nextVersion });
      const q = db.updateTable(table).set(set).where('id', '=', p[columns.length]);
      return (cas ? q.where(VERSION_COLUMN, '=', p[columns.length + 1]) : q).returningAll().compile();
    },
    ...columns.map((c) => row[c]),
    id,
    ...(cas ? [expectedVersion] : []),
  );
  return rows[0];
}
