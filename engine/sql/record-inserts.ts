import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { VERSION_COLUMN } from '../schema/table.ts';
import type { Then, WriteThen } from './write-then.ts';
import type { TenantDb } from '../dialects/types.ts';
import { eventInsertFrom, eventOfWrite, WRITTEN, type WriteEvent } from '../events/event-sql.ts';
import { eventParentSql } from '../events/event-parent.ts';
import { tableRef } from '../dialects/table-ref.ts';
import { claimable, keepFrom, unclaimed, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import type { Resource } from '../registry.ts';
import { recordJsonOf } from './records-json.ts';
import { linkedKey, liveRecord, queries, rowOf, writes, type LinkCheck } from './record-writes.ts';

/** A record's INSERTs, each compiled once per shape (record-writes.ts), returning the whole row. */

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

/** Each link names a live record: a create's parents looked up by its own INSERT (insertWhere). */
const liveParents = (t: TenantDb, columns: readonly string[], p: readonly unknown[], links: readonly LinkCheck[]) =>
  sql.join(
    links.map(({ table, column }) => liveRecord(t, table, p[columns.indexOf(column)])),
    sql` and `,
  );

/**
 * insertRowThen for a keyed create (engine/idempotency/) on a database whose writes of one key
 * cannot interleave (one writer: SQLite): the row is inserted only while no answer is kept for
 * the key, checked by the INSERT itself, and `then` (given the inserted row) makes the event's
 * and the kept answer's statements, run right after it and kept with it. Undefined when the key
 * was not free: nothing was written, and nothing run after.
 */
export async function insertRowIfKeyFreeThen(
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
      return eventOfWrite(t, insert, recordJsonOf(t.flavour, resource, WRITTEN), {
        at,
        collection: table,
        op: 'create',
        changed,
        user,
        parent: eventParentSql(resource, WRITTEN),
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
 * inserted row (Supports.eventInStatement: databases whose statements can write two tables):
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
      return eventOfWrite(t, insert, recordJsonOf(t.flavour, resource, WRITTEN), {
        at,
        collection: table,
        op: 'create',
        changed,
        user,
        parent: eventParentSql(resource, WRITTEN),
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
 * insertRowWithEvent with an Idempotency-Key's claim in the same statement (Locks.inStatement):
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
  const version = sql.ref(`written_json.${VERSION_COLUMN}`);
  const { rows } = await writes<KeptAnswer>(
    db,
    `insert+event+claim\0${table}\0${columns.join('\0')}`,
    (...p) => {
      const [at, changed, user, lock, owner, key, fingerprint, expiresAt, status, locationPrefix] = p.slice(columns.length);
      const c = { lock, owner, key, fingerprint, expiresAt };
      return sql<KeptAnswer>`with written as (${insertWhere(t, table, columns, p, claimable(t, c))}),
        written_json as (select written.id, ${sql.ref(`written.${VERSION_COLUMN}`)}, ${recordJsonOf(t.flavour, resource, 'written')} as json from written),
        event as (${eventInsertFrom(t, 'written_json', sql.ref('written_json.json'), { at, collection: table, op: 'create', changed, user })}),
        key_claim as (${keepFrom(t, c, 'written_json', {
          status,
          body: sql.ref('written_json.json'),
          location: sql`cast(${locationPrefix} as text) || written_json.id`,
          etag: sql`'"' || ${version} || '"'`, // etagOf (engine/http/conditional.ts)
        })})
        select status, body, location, etag from key_claim`.compile(db);
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
