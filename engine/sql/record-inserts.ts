import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { VERSION_COLUMN } from '../schema/table.ts';
import { compiledStatement, type Compilable, type ListPlaceholder } from '../compiled-queries.ts';
import { databaseOf } from '../dialects/index.ts';
import type { TenantDb } from '../dialects/types.ts';
import { changedJson, eventInsertFrom, eventOfWrite, WRITTEN } from '../events/event-sql.ts';
import { eventParentSql } from '../events/event-parent.ts';
import { claimable, keepFrom, unclaimed, type Claim, type KeptAnswer } from '../idempotency/store.ts';
import type { Resource } from '../registry.ts';
import { recordJsonOf } from './records-json.ts';
import type { InsertPlan } from '../writes/plan.ts';
import { setupOf, tableShapeOf, whereSql, type TableShape } from './table-shape.ts';

/**
 * A record's INSERT of its plans' rows (engine/writes/plan.ts), returning each whole row: alone,
 * with its event in the same statement, or claiming an Idempotency-Key too. Each compiled once
 * per shape (the table, the columns, how many rows, the conditions' template): building a query
 * costs more than running it (engine/compiled-queries.ts).
 */

type Row = Record<string, unknown>;

/** What decides an INSERT's SQL: its table shape (no conditions: a VALUES list) and how many rows. */
interface InsertShape extends TableShape {
  readonly rows: number;
}

/** An INSERT's values: the rows' in column order, then the conditions' (conditionValues). */
interface InsertValues {
  readonly row: readonly unknown[];
  readonly where: readonly unknown[];
}

/** A create event's values, written from the inserted row by the same statement. */
interface EventValues {
  readonly at: string;
  readonly changed: string;
  readonly user: string | null;
}

/**
 * The rows inserted only where the conditions hold: INSERT ... SELECT ... WHERE (PostgreSQL
 * types the parameters from the columns, as for VALUES); without, a VALUES list.
 */
function insertSql(db: Kysely<any>, s: InsertShape, p: { row: ListPlaceholder; where: ListPlaceholder }, also?: RawBuilder<boolean>) {
  const rows = Array.from({ length: s.rows }, (_, r) => s.columns.map((_c, i) => p.row.at(r * s.columns.length + i)));
  const wheres = [whereSql(db, s, p.where), also].filter((w) => w !== undefined);
  const insert = db.insertInto(s.resource.name);
  if (wheres.length === 0) return insert.values(rows.map((r) => Object.fromEntries(s.columns.map((c, i) => [c, r[i]])))).returningAll();
  return insert
    .columns(s.columns)
    .expression(sql`select ${sql.join(rows[0]!)} where ${sql.join(wheres, sql` and `)}`)
    .returningAll();
}

const insertRows = compiledStatement<InsertShape, InsertValues, Row>(
  'record insert',
  (db, s, p) => insertSql(db, s, p) as Compilable<Row>,
  500,
);

const insertRowsWithEvents = compiledStatement<InsertShape, InsertValues & EventValues, Row>(
  'record insert with event',
  (db, s, p) =>
    eventOfWrite({ schema: s.schema }, insertSql(db, s, p), recordJsonOf(databaseOf(db).flavour, s.resource, WRITTEN), {
      at: p.at,
      collection: s.resource.name,
      op: 'create',
      changed: p.changed,
      user: p.user,
      parent: eventParentSql(s.resource, WRITTEN),
    }),
  500,
);

/** The shape and values of plans of one collection and shape (the first's conditions, when one). */
function shapeOf(t: Pick<TenantDb, 'schema' | 'flavour'>, plans: readonly InsertPlan[]): { shape: InsertShape; values: InsertValues } {
  const { resource, conditions } = plans[0]!;
  const columns = Object.keys(plans[0]!.row);
  const { shape, where } = tableShapeOf(t, resource, columns, conditions);
  const row: unknown[] = [];
  for (const plan of plans) for (const c of columns) row.push(plan.row[c]);
  return { shape: Object.assign(shape, { rows: plans.length }), values: { row, where } };
}

const eventValues = (plan: InsertPlan): EventValues => ({
  at: plan.event.at,
  changed: changedJson(plan.event.changed),
  user: plan.event.user,
});

/**
 * The INSERT of plans of one collection and shape (one plan with conditions, or any number
 * without), returning the rows inserted in the order given (ids are taken in the VALUES list's
 * order): none when the conditions do not hold.
 */
export function insertQuery(t: TenantDb, db: Kysely<any>, plans: readonly InsertPlan[]): CompiledQuery<Row> {
  const { shape, values } = shapeOf(t, plans);
  return insertRows.query(db, shape, values);
}

/**
 * insertQuery with each row's create event in the same statement, the event's record written
 * from the inserted row (Supports.eventInStatement: databases whose statements can write two
 * tables), the events in the rows' order.
 */
export function insertWithEventsQuery(t: TenantDb, db: Kysely<any>, plans: readonly InsertPlan[]): CompiledQuery<Row> {
  const { shape, values } = shapeOf(t, plans);
  return insertRowsWithEvents.query(db, shape, Object.assign(values, eventValues(plans[0]!)));
}

/** Inserted rows in id order: the order their VALUES were given (RETURNING promises none). */
export const byId = (rows: Row[]) => (rows.length < 2 ? rows : rows.sort((a, b) => Number(a.id) - Number(b.id)));

/** A key's values: what the lock, the check it is free and the kept answer take. */
interface ClaimValues {
  readonly lock: unknown;
  readonly owner: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly expiresAt: number;
  readonly status: number;
  readonly locationPrefix: string;
}

// claimable, unclaimed and keepFrom read the database's kind and the tenant's schema only.
const inStatement = (db: Kysely<any>, schema: string | undefined) => setupOf(db, { schema }) as TenantDb;

const insertClaimed = compiledStatement<InsertShape, InsertValues & EventValues & ClaimValues, KeptAnswer>(
  'record insert claiming its key',
  (db, s, p) => {
    const t = inStatement(db, s.schema);
    const c = { lock: p.lock, owner: p.owner, key: p.key, fingerprint: p.fingerprint, expiresAt: p.expiresAt };
    const version = sql.ref(`written_json.${VERSION_COLUMN}`);
    const table = s.resource.name;
    return sql<KeptAnswer>`with written as (${insertSql(db, s, p, claimable(t, c))}),
        written_json as (select written.id, ${sql.ref(`written.${VERSION_COLUMN}`)}, ${recordJsonOf(t.flavour, s.resource, 'written')} as json from written),
        event as (${eventInsertFrom(t, 'written_json', sql.ref('written_json.json'), { at: p.at, collection: table, op: 'create', changed: p.changed, user: p.user })}),
        key_claim as (${keepFrom(t, c, 'written_json', {
          status: p.status,
          body: sql.ref('written_json.json'),
          location: sql`cast(${p.locationPrefix} as text) || written_json.id`,
          etag: sql`'"' || ${version} || '"'`, // etagOf (engine/http/conditional.ts)
        })})
        select status, body, location, etag from key_claim`;
  },
);

/**
 * A plan's row and its create event with an Idempotency-Key's claim in the same statement
 * (Locks.inStatement): inserted only when the key is claimable, and the answer kept for the key
 * (201, the record's JSON, its Location and ETag) written from the inserted row, so the record,
 * its event and its key commit together or none of them. No row: the key was not free.
 */
export function insertClaimedQuery(
  t: TenantDb,
  db: Kysely<any>,
  plan: InsertPlan,
  claim: Claim,
  locationPrefix: string,
): CompiledQuery<KeptAnswer> {
  const { shape, values } = shapeOf(t, [plan]);
  const { lock, owner, key, fingerprint, expiresAt } = claim;
  return insertClaimed.query(
    db,
    shape,
    Object.assign(values, eventValues(plan), { lock, owner, key, fingerprint, expiresAt, status: 201, locationPrefix }),
  );
}

const insertIfKeyFree = compiledStatement<InsertShape, InsertValues & { owner: string; key: string }, Row>(
  'record insert if its key is free',
  (db, s, p) => insertSql(db, s, p, unclaimed(inStatement(db, s.schema), p.owner, p.key)),
);

/**
 * A plan's INSERT for a keyed create on a database whose writes of one key cannot interleave
 * (one writer: SQLite): the row is inserted only while no answer is kept for the key. No row:
 * the key was not free.
 */
export function insertIfKeyFreeQuery(
  t: TenantDb,
  db: Kysely<any>,
  plan: InsertPlan,
  key: { readonly owner: string; readonly key: string },
): CompiledQuery<Row> {
  const { shape, values } = shapeOf(t, [plan]);
  return insertIfKeyFree.query(db, shape, Object.assign(values, { owner: key.owner, key: key.key }));
}
