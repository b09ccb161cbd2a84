import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { VERSION_COLUMN } from '../schema/table.ts';
import { compiledQueriesByKey } from '../compiled-queries.ts';
import type { Then, WriteThen } from './write-then.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EVENT_COLUMNS, eventInsertFrom, eventOfWrite, type WriteEvent } from '../events/event-sql.ts';
import { tableRef } from '../dialects/table-ref.ts';
import { claimable, keepFrom, unclaimed, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import type { Resource } from '../registry.ts';
import { EVENTS_TABLE } from '../events/event-log.ts';
import { recordJsonOf } from './records-json.ts';
import { all, conditionShape, conditionSql, conditionValues, type RowCondition } from '../writes/conditions.ts';

/**
 * A record's INSERT and UPDATE, compiled once per shape: the table and the columns written
 * (a PATCH writes the fields it was sent), so building the query is paid once per shape, not
 * per write. Both return the whole row.
 */
const queries = compiledQueriesByKey(500);
const writes = <R>(db: Kysely<any>, key: string, build: (...p: any[]) => CompiledQuery<R>, ...args: readonly unknown[]) =>
  db.executeQuery<R>(queries(db, key, build, ...args));

/** The columns' placeholders as a row object, for a builder's values() or set(). */
const rowOf = (columns: readonly string[], placeholders: readonly unknown[]) =>
  Object.fromEntries(columns.map((c, i) => [c, placeholders[i]]));

const insertQuery = (db: Kysely<any>, table: string, row: Record<string, unknown>) => {
  const columns = Object.keys(row);
  return queries<Record<string, unknown>>(
    db,
    `insert\0${table}\0${columns.join('\0')}`,
    (...p) => db.insertInto(table).values(rowOf(columns, p)).returningAll().compile(),
    ...columns.map((c) => row[c]),
  );
};

export async function insertRow(
  db: Kysely<any>,
  table: string,
  row: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  return (await db.executeQuery(insertQuery(db, table, row))).rows[0];
}

/**
 * insertRow, and right after it the statement `then` makes from the inserted row, the two kept
 * together (engine/sql/write-then.ts): a create and its event. With `links`, the row is inserted
 * only where each names a live record (liveParents). Undefined when no row was inserted: nothing
 * was written, and nothing run after.
 */
export async function insertRowThen(
  writeThen: WriteThen,
  t: TenantDb,
  table: string,
  row: Record<string, unknown>,
  then: (inserted: Record<string, unknown>) => Then,
  links: readonly LinkCheck[] = [],
): Promise<Record<string, unknown> | undefined> {
  const columns = Object.keys(row);
  const insert =
    links.length === 0
      ? insertQuery(t.db, table, row)
      : queries<Record<string, unknown>>(
          t.db,
          `insert+links\0${table}\0${columns.join('\0')}\0${linkedKey(links)}`,
          (...p) => insertWhere(t, table, columns, p, liveParents(t, columns, p, links)).compile(t.db),
          ...columns.map((c) => row[c]),
        );
  return thenIfInserted(writeThen, insert, then);
}

/** The write, and `then`'s statements right after it when it inserted a row (none when it did not). */
async function thenIfInserted(
  writeThen: WriteThen,
  insert: CompiledQuery,
  then: (inserted: Record<string, unknown>) => Then,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await writeThen(insert, (result) => {
    const inserted = result.rows[0] as Record<string, unknown> | undefined;
    return inserted ? then(inserted) : [];
  });
  return rows[0] as Record<string, unknown> | undefined;
}

/**
 * An INSERT of the row's values (the first `columns.length` of `p`) only where `where` holds,
 * returning the row inserted: none when it does not. INSERT ... SELECT, for its WHERE:
 * PostgreSQL types the parameters from the columns, as for VALUES.
 */
const insertWhere = (t: TenantDb, table: string, columns: readonly string[], p: readonly unknown[], where: RawBuilder<unknown>) =>
  sql<Record<string, unknown>>`insert into ${tableRef(t, table)} (${sql.join(columns.map((name) => sql.ref(name)))})
    select ${sql.join(p.slice(0, columns.length))} where ${where} returning *`;

/** A parent link a create's INSERT checks itself: `column` names a record of `table`, which must be live. */
export interface LinkCheck {
  readonly table: string;
  readonly column: string;
}

/** A live record of `table` has this id. */
const liveRecord = (t: TenantDb, table: string, id: unknown) =>
  sql<boolean>`exists (select 1 from ${tableRef(t, table)} where id = ${id} and deleted = false)`;

/** Each link names a live record: a create's parents looked up by its own INSERT (insertWhere). */
const liveParents = (t: TenantDb, columns: readonly string[], p: readonly unknown[], links: readonly LinkCheck[]) =>
  sql.join(
    links.map(({ table, column }) => liveRecord(t, table, p[columns.indexOf(column)])),
    sql` and `,
  );

const linkedKey = (links: readonly LinkCheck[]) => links.map((l) => `${l.column}>${l.table}`).join('\0');

/**
 * insertRowThen for a keyed create (engine/idempotency/) on a database whose writes of one key
 * cannot interleave (one writer: SQLite): the row is inserted only while no answer is kept for
 * the key, checked by the INSERT itself, and `then` (given the inserted row) makes the event's
 * and the kept answer's statements, run right after it and kept with it. Undefined when the key
 * was not free: nothing was written, and nothing run after.
 */
export async function insertRowUnclaimedThen(
  writeThen: WriteThen,
  t: TenantDb,
  table: string,
  row: Record<string, unknown>,
  key: { readonly owner: string; readonly key: string },
  then: (inserted: Record<string, unknown>) => Then,
): Promise<Record<string, unknown> | undefined> {
  const columns = Object.keys(row);
  const insert = queries<Record<string, unknown>>(
    t.db,
    `insert+unclaimed\0${table}\0${columns.join('\0')}`,
    (...p) => {
      const [owner, keyValue] = p.slice(columns.length);
      return insertWhere(t, table, columns, p, unclaimed(t, owner, keyValue)).compile(t.db);
    },
    ...columns.map((c) => row[c]),
    key.owner,
    key.key,
  );
  return thenIfInserted(writeThen, insert, then);
}

/**
 * Rows of one shape (the same columns) inserted by one statement, returned in the order given
 * (ids are taken in the VALUES list's order). Compiled once per shape and number of rows.
 */
export async function insertRows(
  db: Kysely<any>,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const columns = Object.keys(rows[0]!);
  const n = rows.length;
  const { rows: inserted } = await writes<Record<string, unknown>>(
    db,
    `insert*${n}\0${table}\0${columns.join('\0')}`,
    (...p) =>
      db
        .insertInto(table)
        .values(Array.from({ length: n }, (_, i) => rowOf(columns, p.slice(i * columns.length, (i + 1) * columns.length))))
        .returningAll()
        .compile(),
    ...rows.flatMap((row) => columns.map((c) => row[c])),
  );
  return byId(inserted);
}

/** insertRows with each row's create event, in one statement (as insertRowWithEvent), the events in the rows' order. */
export async function insertRowsWithEvents(
  t: TenantDb,
  db: Kysely<any>,
  resource: Resource,
  rows: readonly Record<string, unknown>[],
  event: WriteEvent,
): Promise<Record<string, unknown>[]> {
  const table = resource.name;
  const columns = Object.keys(rows[0]!);
  const n = rows.length;
  const { rows: inserted } = await writes<Record<string, unknown>>(
    db,
    `insert*${n}+event\0${table}\0${columns.join('\0')}`,
    (...p) => {
      const values = Array.from({ length: n }, (_, i) => rowOf(columns, p.slice(i * columns.length, (i + 1) * columns.length)));
      const [at, changed, user] = p.slice(n * columns.length);
      const insert = db.insertInto(table).values(values).returningAll();
      return eventOfWrite(t, insert, recordJsonOf(t.dialect, resource, 'w'), {
        at,
        collection: table,
        op: 'create',
        changed,
        user,
      }).compile(db);
    },
    ...rows.flatMap((row) => columns.map((c) => row[c])),
    event.at,
    JSON.stringify(event.changed),
    event.user,
  );
  return byId(inserted);
}

/** Inserted rows in id order: the order their VALUES were given (RETURNING promises none). */
const byId = (rows: Record<string, unknown>[]) => (rows.length < 2 ? rows : rows.sort((a, b) => Number(a.id) - Number(b.id)));

/**
 * insertRow and the record's create event in one statement, the event's record written from the
 * inserted row (EventLog.inStatement: databases whose statements can write two tables):
 * insertRowsWithEvents of one row. With `links`, the row is inserted only where each names a
 * live record (liveParents): undefined when one does not, nothing written.
 */
export async function insertRowWithEvent(
  t: TenantDb,
  db: Kysely<any>,
  resource: Resource,
  row: Record<string, unknown>,
  event: WriteEvent,
  links: readonly LinkCheck[] = [],
): Promise<Record<string, unknown> | undefined> {
  if (links.length === 0) return (await insertRowsWithEvents(t, db, resource, [row], event))[0];
  const table = resource.name;
  const columns = Object.keys(row);
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `insert+links+event\0${table}\0${columns.join('\0')}\0${linkedKey(links)}`,
    (...p) => {
      const [at, changed, user] = p.slice(columns.length);
      const insert = insertWhere(t, table, columns, p, liveParents(t, columns, p, links));
      return eventOfWrite(t, insert, recordJsonOf(t.dialect, resource, 'w'), {
        at,
        collection: table,
        op: 'create',
        changed,
        user,
      }).compile(db);
    },
    ...columns.map((c) => row[c]),
    event.at,
    JSON.stringify(event.changed),
    event.user,
  );
  return rows[0];
}

/**
 * insertRowWithEvent with an Idempotency-Key's claim in the same statement (Dialect.lockInStatement):
 * the row is inserted only when the key is claimable, and the answer kept for the key (status,
 * the record's JSON, its Location and ETag) is written from the inserted row, so the record, its
 * event and its key commit together or none of them, in one round trip. Undefined when the key
 * was not free (in flight elsewhere, or an answer kept): nothing was written.
 */
export async function insertRowClaimed(
  t: TenantDb,
  db: Kysely<any>,
  resource: Resource,
  row: Record<string, unknown>,
  event: WriteEvent,
  claim: Claim,
  answer: { readonly status: number; readonly locationPrefix: string },
): Promise<KeptAnswer | undefined> {
  const table = resource.name;
  const columns = Object.keys(row);
  const version = sql.ref(`j.${VERSION_COLUMN}`);
  const { rows } = await writes<KeptAnswer>(
    db,
    `insert+event+claim\0${table}\0${columns.join('\0')}`,
    (...p) => {
      const [at, changed, user, lock, owner, key, fingerprint, expiresAt, status, locationPrefix] = p.slice(columns.length);
      const c = { lock, owner, key, fingerprint, expiresAt };
      return sql<KeptAnswer>`with w as (${insertWhere(t, table, columns, p, claimable(t, c))}),
        j as (select w.id, ${sql.ref(`w.${VERSION_COLUMN}`)}, ${recordJsonOf(t.dialect, resource, 'w')} as json from w),
        e as (${eventInsertFrom(t, 'j', sql.ref('j.json'), { at, collection: table, op: 'create', changed, user })}),
        k as (${keepFrom(t, c, 'j', {
          status,
          body: sql.ref('j.json'),
          location: sql`cast(${locationPrefix} as text) || j.id`,
          etag: sql`'"' || ${version} || '"'`, // etagOf (engine/http/conditional.ts)
        })})
        select status, body, location, etag from k`.compile(db);
    },
    ...columns.map((c) => row[c]),
    event.at,
    JSON.stringify(event.changed),
    event.user,
    claim.lock,
    claim.owner,
    claim.key,
    claim.fingerprint,
    claim.expiresAt,
    answer.status,
    answer.locationPrefix,
  );
  const kept = rows[0];
  return kept && { status: Number(kept.status), body: kept.body, location: kept.location, etag: kept.etag };
}

/**
 * updateRow and the record's update event in one statement (EventLog.inStatement: PostgreSQL's
 * data-modifying CTEs), the event's record written from the updated row and its `changed` (the
 * collection's own fields whose value the UPDATE changed) from that row against the one it
 * replaced: a PATCH or PUT is this one statement (after a read when its checks need the record),
 * atomic without a transaction. The event keeps the row the UPDATE replaced (before_row), read
 * under the row's lock in the same statement. Undefined when no live row was written. A soft
 * delete (`op`) is this statement too, `deleted` among the row's values, its `changed` that one.
 * With `checks`, the row is written only where they hold (RowChecks): a write's checks made by
 * its statement, without reading the record first (no row: the caller's read says which failed).
 */
export async function updateRowWithEvent(
  t: TenantDb,
  db: Kysely<any>,
  resource: Resource,
  id: number,
  row: Record<string, unknown>,
  expectedVersion: number | undefined,
  event: { readonly at: string; readonly user: string | null; readonly op?: 'update' | 'delete' },
  checks: RowChecks = {},
): Promise<Record<string, unknown> | undefined> {
  const table = resource.name;
  const columns = Object.keys(row);
  const cas = expectedVersion !== undefined;
  const op = event.op ?? 'update';
  const links = checks.links ?? [];
  const condition = checks.conditions?.length ? all(checks.conditions) : undefined;
  const { rows } = await writes<Record<string, unknown>>(
    db,
    `${op}+event\0${table}\0${cas}\0${columns.join('\0')}\0links\0${linkedKey(links)}\0where\0${condition ? conditionShape(condition) : ''}`,
    (...p) => {
      const [rowId, version, at, user, ...conditionParams] = p.slice(columns.length);
      const set = Object.assign(rowOf(columns, p), { [VERSION_COLUMN]: nextVersion });
      // `updated` after the stamp of the row replaced, as nextTimestamp, from the row as the lock
      // finds it: a write that did not read the record first (update.ts) has no stamp to follow.
      if ('updated' in set) set.updated = sql`greatest(cast(${set.updated} as timestamptz), updated + interval '1 millisecond')`;
      // After `o` has locked the row: `o` is then the row the UPDATE replaces.
      const q = db
        .updateTable(table)
        .set(set)
        .where('id', '=', rowId)
        .where(sql<boolean>`exists (select 1 from o)`);
      const update = (cas ? q.where(VERSION_COLUMN, '=', version) : q).returningAll();
      // Each changed field as `,"name"`, the first comma cut: a chain of ||, not concat_ws (at most 100 arguments).
      const changed = sql.join(
        Object.keys(resource.definition.fields).map(
          (name) =>
            sql`coalesce(case when ${sql.ref(`o.${name}`)} is distinct from ${sql.ref(`w.${name}`)} then ${sql.lit(`,${JSON.stringify(name)}`)} end, '')`,
        ),
        sql` || `,
      );
      // What the write's rules ask of the row (engine/writes/rules/), its values the statement's parameters.
      const keeps = condition ? sql` and ${conditionSql(t, resource, condition, () => conditionParams.shift())}` : sql``;
      // A link written keeps its value (a parent deleted since may stay) or names a live record.
      const linked = links.map(({ table, column }) => {
        const value = p[columns.indexOf(column)];
        return sql` and (${sql.ref(column)} = ${value} or ${liveRecord(t, table, value)})`;
      });
      // `o` locks the row (FOR UPDATE) and reads it as it is once the lock is held: the row the
      // UPDATE replaces, whatever committed since the statement began (its `changed`, and the
      // event's before_row). Without the lock, a write committed meanwhile would be missed by
      // both; a compare-and-set instead made writes of one row retry each other, hundreds of
      // times a second under load (BENCHMARKS.md, "Lazy snapshots"). A live row only: one deleted
      // meanwhile is not written (no row: the caller says why, 404 or through its read).
      // The checks are the lock's WHERE: under a write committed meanwhile, PostgreSQL checks it
      // again on the row as that write left it, once the lock is taken.
      return sql<
        Record<string, unknown>
      >`with o as (select * from ${tableRef(t, table)} where id = ${rowId} and deleted = false${keeps}${linked.length > 0 ? sql.join(linked, sql``) : sql``} for update),
        w as (${update}),
        e as (insert into ${tableRef(t, EVENTS_TABLE)} ${EVENT_COLUMNS}
          select cast(${at} as text), ${sql.lit(table)}, w.id, ${sql.lit(op)}, ${op === 'delete' ? sql.lit(DELETE_CHANGED) : sql`'[' || substr(${changed}, 2) || ']'`},
            ${recordJsonOf(t.dialect, resource, 'w')}, cast(${user} as text), ${t.dialect.rowJson('o', resource.fieldNames)}
          from w left join o on true)
        select * from w`.compile(db);
    },
    ...columns.map((c) => row[c]),
    id,
    cas ? expectedVersion : null,
    event.at,
    event.user,
    ...(condition ? conditionValues(condition, resource, t.dialect) : []),
  );
  return rows[0];
}

/** What a row must hold for updateRowWithEvent to write it, each checked on the row it locks. */
export interface RowChecks {
  /** What the write's rules ask of the row (engine/writes/rules/). */
  readonly conditions?: readonly RowCondition[];
  /** Each link written keeps the row's value, or names a live record. */
  readonly links?: readonly LinkCheck[];
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
