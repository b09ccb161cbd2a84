import { sql, type CompiledQuery, type Expression, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import { compiledStatement, type ListPlaceholder, type Placeholders } from '../compiled-queries.ts';
import { tableRef } from '../dialects/table-ref.ts';
import type { SqlFlavour, TenantDb } from '../dialects/types.ts';
import { jsonArrayOf } from '../dialects/json-array.ts';
import { parentsCondition, parentText } from './event-parent.ts';
import {
  EVENTS_GONE_KEY,
  EVENTS_TABLE,
  storedEvent,
  type EventOp,
  type EventPage,
  type EventPageJson,
  type EventQuery,
  type NewEvent,
} from './event-log.ts';

/** The feed's statements that every database writes alike: each EventLog builds its own on them. */

/** Values of one event, in the order `eventRows` takes them. */
const VALUES_PER_EVENT = 10;

/** The JSON of `changed` lists that many events share (sharedChanged), by the list. */
const sharedJson = new WeakMap<readonly string[], string>();

/**
 * A `changed` list many events share, as a collection's creates share every field
 * (createdFields): its JSON is made once, not once an event. The list must never change.
 */
export function sharedChanged(list: readonly string[]): readonly string[] {
  sharedJson.set(list, JSON.stringify(list));
  return list;
}

/** A `changed` list's JSON: made once for a shared list. */
export const changedJson = (changed: readonly string[]) => sharedJson.get(changed) ?? JSON.stringify(changed);

const valuesOf = (events: readonly NewEvent[]): unknown[] => {
  const values: unknown[] = [];
  for (const e of events)
    values.push(
      e.at,
      e.collection,
      e.id,
      e.op,
      changedJson(e.changed),
      e.record,
      e.user,
      e.before ?? null,
      e.parent?.collection ?? null,
      e.parent?.id ?? null,
    );
  return values;
};

/**
 * The events to append as a VALUES list of parameters, rows `(at, collection, record_id, op,
 * changed, record, username, before_row, parent_collection, parent_id)` (EVENT_COLUMNS), each event's VALUES_PER_EVENT values
 * in turn in `values`. The record is the JSON the write already holds: read again from its row,
 * it cost the append about as much again.
 */
function eventRows(n: number, values: ListPlaceholder): RawBuilder<unknown> {
  return sql`values ${sql.join(
    Array.from({ length: n }, (_, i) => {
      const [at, collection, id, op, changed, record, user, before, parent, parentId] = Array.from({ length: VALUES_PER_EVENT }, (_, k) =>
        values.at(i * VALUES_PER_EVENT + k),
      );
      return sql`(cast(${at} as text), cast(${collection} as text), cast(${id} as bigint), cast(${op} as text),
        cast(${changed} as text), cast(${record} as text), cast(${user} as text), cast(${before} as text),
        cast(${parent} as text), cast(${parentId} as bigint))`;
    }),
  )}`;
}

/** The columns an event's VALUES row (eventRows) fills, in order. */
export const EVENT_COLUMNS = sql`(at, collection, record_id, op, changed, record, username, before_row, parent_collection, parent_id)`;

/** Events appended by one statement at most: a longer list goes in several, in order. */
const EVENTS_PER_STATEMENT = 100;

/** How a database writes its append around the event rows (`n` of them): its INSERT. */
export type EventsInsert = (t: InSchema, rows: RawBuilder<unknown>, n: number) => RawBuilder<unknown>;

/** What the feed's statements know of a tenant's database: its schema (the setup's), its SQL flavour (the database's). */
type InSchema = Pick<TenantDb, 'schema'>;

/**
 * A database's append of events (EventLog.append), and of one event given rather than run
 * (EventLog.appendQuery: for a statement that runs right after its write, engine/sql/write-then.ts).
 */
export function eventAppender(insert: EventsInsert) {
  // Compiled once per count of events: every write appends (BENCHMARKS.md, "compile cache's named placeholders").
  const statement = compiledStatement<{ schema: string | undefined; n: number }, { values: readonly unknown[] }>(
    'event append',
    (_db, shape, p) => insert(shape, eventRows(shape.n, p.values), shape.n),
    EVENTS_PER_STATEMENT,
  );
  return {
    query: (t: TenantDb, db: Kysely<any>, event: NewEvent): CompiledQuery =>
      statement.query(db, { schema: t.schema, n: 1 }, { values: valuesOf([event]) }),
    async append(t: TenantDb, trx: Kysely<any>, events: readonly NewEvent[]): Promise<void> {
      for (let from = 0; from < events.length; from += EVENTS_PER_STATEMENT) {
        const part = from === 0 && events.length <= EVENTS_PER_STATEMENT ? events : events.slice(from, from + EVENTS_PER_STATEMENT);
        await statement.run(trx, { schema: t.schema, n: part.length }, { values: valuesOf(part) });
      }
    },
  };
}

/** What an event takes from its write, besides the record (see NewEvent). */
export interface WriteEvent {
  readonly at: string;
  readonly changed: readonly string[];
  readonly user: string | null;
}

/**
 * A statement that writes a record (returning its row) and appends its event, the record's JSON
 * written from the row returned (`recordJson` of alias WRITTEN): for a database whose statements can
 * write two tables (Supports.eventInStatement), where the two in one statement are one round trip and
 * atomic without a transaction. The event takes no seq here (PostgreSQL numbers events later).
 */
export function eventOfWrite(
  t: InSchema,
  write: OperationNodeSource,
  recordJson: Expression<string>,
  e: WrittenEvent,
): RawBuilder<Record<string, unknown>> {
  return sql`with written as (${write}), event as (${eventInsertFrom(t, WRITTEN, recordJson, e)}) select * from written`;
}

/** The alias eventOfWrite gives the rows its write returned: its `recordJson` and parent columns read them. */
export const WRITTEN = 'written';

/** What eventOfWrite's event takes besides the record: values, or placeholders for them. */
export interface WrittenEvent {
  readonly at: unknown;
  readonly collection: string;
  readonly op: EventOp;
  readonly changed: unknown;
  readonly user: unknown;
  /** The event's parent columns, written from the row (event-parent.ts's eventParentSql); none when absent. */
  readonly parent?: RawBuilder<unknown>;
}

/**
 * The INSERT of the event of a record written in the same statement: one row per row of `from`
 * (a CTE holding the written rows, with their `id`), the record's JSON `recordJson` (written
 * from `from`'s columns), in id order: the events of a multi-row insert follow its rows. No seq
 * (see eventOfWrite).
 */
export function eventInsertFrom(t: InSchema, from: string, recordJson: Expression<string>, e: WrittenEvent): RawBuilder<unknown> {
  return sql`insert into ${tableRef(t, EVENTS_TABLE)} (at, collection, record_id, op, changed, record, username, parent_collection, parent_id)
      select cast(${e.at} as text), ${sql.lit(e.collection)}, ${sql.ref(`${from}.id`)}, ${sql.lit(e.op)}, cast(${e.changed} as text), ${recordJson}, cast(${e.user} as text),
        ${e.parent ?? sql`null, null`} from ${sql.table(from)}
      order by ${sql.ref(`${from}.id`)}`;
}

/** What a feed's page statement takes of its tenant's database: its schema and SQL flavour, both the setup's. */
export type FeedTables = Pick<TenantDb, 'schema' | 'flavour'>;
type FeedSql<T> = (t: FeedTables) => RawBuilder<T>;

/**
 * A page of events after a position, with the highest seq committed (`highest`, the database's
 * own expression) and the gone mark, in one statement: one view of the database, so the page and
 * the mark agree. `pending`: whether that view holds events not yet numbered (a database that
 * numbers them after they commit).
 */
export function pageReader(highest: FeedSql<number>, pending: FeedSql<boolean> = () => sql`false`) {
  const read = pageRows(
    highest,
    pending,
    'read',
    () => sql`at, collection, record_id, op, changed, record, username, parent_collection, parent_id`,
    sql`e.*`,
  );
  return async (t: TenantDb, q: EventQuery): Promise<PageRead<EventPage>> => {
    const { rows, highest, goneBelow, pending } = await read(t, q);
    return { page: { events: rows.map(storedEvent), highest, goneBelow }, pending };
  };
}

/**
 * pageReader's page with each event as eventJson writes it, written by the database row by row
 * (`text`: an event row's JSON text, the database's own expression): one string a row to make
 * here instead of eight and an object, and the page's JSON only joined here.
 */
export function pageTextReader(highest: FeedSql<number>, pending: FeedSql<boolean>, text: FeedSql<string>) {
  // Only the text comes back: no seq to parse a row (the rows come in seq order all the same).
  const read = pageRows(highest, pending, 'read-text', (t) => sql`${text(t)} as json`, sql`e.json`);
  return async (t: TenantDb, q: EventQuery): Promise<PageRead<EventPageJson>> => {
    const { rows, highest, goneBelow, pending } = await read(t, q);
    // join() writes one flat string; += would leave a rope that the socket's write flattens.
    return { page: { json: `[${rows.map((r) => r.json as string).join(',')}]`, highest, goneBelow }, pending };
  };
}

/** A page, and whether its view held events committed and not numbered yet (a database that numbers them after they commit). */
export interface PageRead<P> {
  readonly page: P;
  readonly pending: boolean;
}

/** What decides a feed page statement's SQL: the tenant's schema, how many collections and ops it filters on (-1: none). */
interface PageShape {
  readonly schema: string | undefined;
  readonly collections: number;
  readonly ops: number;
  readonly parents: number;
  /** With parents: the collections whose events name their parent (EventQuery.named). */
  readonly named: readonly string[];
}

/** A feed page statement's values. */
interface PageValues {
  readonly after: number;
  readonly limit: number;
  readonly collections: readonly string[];
  readonly ops: readonly string[];
  readonly parents: readonly string[];
}

/**
 * One statement per SQL flavour, `make` given it: a reader serves any database, and its flavour (the
 * setup's, as the schema is) is fixed for each statement rather than read from a call.
 */
function perFlavour<T>(make: (flavour: SqlFlavour) => T): (flavour: SqlFlavour) => T {
  const statements = new WeakMap<SqlFlavour, T>();
  return (flavour) => {
    let s = statements.get(flavour);
    if (!s) statements.set(flavour, (s = make(flavour)));
    return s;
  };
}

const NONE: readonly string[] = [];
const pageShape = (t: TenantDb, q: EventQuery): PageShape => ({
  schema: t.schema,
  collections: q.collections ? q.collections.length : -1,
  ops: q.ops ? q.ops.length : -1,
  parents: q.parents ? q.parents.length : -1,
  named: q.parents ? (q.named ?? NONE) : NONE,
});
const pageValues = (q: EventQuery): PageValues => ({
  after: q.after,
  limit: q.limit,
  collections: q.collections ?? NONE,
  ops: q.ops ?? NONE,
  parents: q.parents ?? NONE,
});

/**
 * The rows of a page after a position (`columns` of each event row besides `seq`, as `e`; `out`
 * the row's columns returned, among them `seq` or `json`, null in the one row of an empty page)
 * and, in the same statement, the highest seq, the gone mark and whether unnumbered events are
 * pending.
 */
function pageRows(
  highest: FeedSql<number>,
  pending: FeedSql<boolean>,
  kind: 'read' | 'read-text',
  columns: FeedSql<unknown>,
  out: RawBuilder<unknown>,
) {
  const present = kind === 'read' ? 'seq' : 'json';
  // Compiled once per count of collections and ops: the feed's pages (BENCHMARKS.md, "compile cache's named placeholders").
  const statementOf = perFlavour((flavour) =>
    compiledStatement<PageShape, PageValues, Record<string, unknown>>(`feed ${kind}`, (_db, shape, p) => {
      const t: FeedTables = { schema: shape.schema, flavour };
      return sql`select h.highest, h.gone, h.pending, ${out}
      from (select ${highest(t)} as highest, ${pending(t)} as pending,
        coalesce((select cast(value as bigint) from ${tableRef(t, 'mrs_meta')} where key = ${sql.lit(EVENTS_GONE_KEY)}), 0) as gone) as h
      left join (select seq, ${columns(t)} from ${tableRef(t, EVENTS_TABLE)}
        where seq > cast(${p.after} as bigint)${sql.join(
          pageFilters(shape, p).map((f) => sql` and ${f}`),
          sql``,
        )}
        order by seq limit cast(${p.limit} as integer)) as e on 1 = 1
      order by e.seq`;
    }),
  );
  return async (t: TenantDb, q: EventQuery) => {
    const { rows } = await statementOf(t.flavour).run(t.db, pageShape(t, q), pageValues(q));
    const head = rows[0]!;
    return {
      rows: rows.filter((r) => r[present] !== null && r[present] !== undefined),
      highest: Number(head.highest),
      goneBelow: Number(head.gone),
      pending: head.pending === true || head.pending === 1,
    };
  };
}

/**
 * The page's conditions on collection, op and parent: as many values of each as the shape says,
 * or none when negative.
 */
function pageFilters(shape: PageShape, p: Placeholders<PageValues>): RawBuilder<unknown>[] {
  const items = (n: number, list: ListPlaceholder) => sql.join(Array.from({ length: n }, (_, i) => list.at(i)));
  return [
    ...(shape.collections < 0
      ? []
      : [shape.collections === 0 ? sql`1 = 0` : sql`collection in (${items(shape.collections, p.collections)})`]),
    ...(shape.ops < 0 ? [] : [shape.ops === 0 ? sql`1 = 0` : sql`op in (${items(shape.ops, p.ops)})`]),
    ...(shape.parents < 0 ? [] : [parentsCondition(shape.parents === 0 ? undefined : items(shape.parents, p.parents), shape.named)]),
  ];
}

/** An event row as the text eventJson writes for it, written by the database. */
const eventText = (t: FeedTables) => {
  const q = (column: string) => t.flavour.jsonString(sql.ref(column));
  return sql<string>`'{"seq":' || seq || ',"at":' || ${q('at')} || ',"collection":' || ${q('collection')} || ',"id":' || record_id
    || ',"op":"' || op || '","changed":' || changed || ',"record":' || record || ',"user":' || ${q('username')} || ${parentText} || '}'`;
};

/**
 * pageReader's page as the text of the answer's JSON array, written by the database: one row
 * back, no row object per event, no JSON made here (EventLog.readJson). For a database in the
 * server's process (SQLite); a shared one pays for it instead of the server (PostgreSQL's
 * event-log.ts). Its events are all numbered: no `pending`.
 */
export function pageJsonReader(highest: FeedSql<number>) {
  const statementOf = perFlavour((flavour) =>
    compiledStatement<PageShape, PageValues, Record<string, unknown>>('feed read-json', (db, shape, p) => {
      const t: FeedTables = { schema: shape.schema, flavour };
      const page = pageFilters(shape, p)
        .reduce(
          (q, f) => q.where(f as RawBuilder<boolean>),
          db.selectFrom(EVENTS_TABLE).where(sql<boolean>`seq > cast(${p.after} as bigint)`),
        )
        .limit(sql<number>`cast(${p.limit} as integer)`);
      return sql`select ${highest(t)} as highest,
      coalesce((select cast(value as bigint) from ${tableRef(t, 'mrs_meta')} where key = ${sql.lit(EVENTS_GONE_KEY)}), 0) as gone,
      ${jsonArrayOf(flavour, page, eventText(t), sql.ref('seq'))} as json`;
    }),
  );
  return async (t: TenantDb, q: EventQuery): Promise<EventPageJson> => {
    const row = (await statementOf(t.flavour).run(t.db, pageShape(t, q), pageValues(q))).rows[0]!;
    return { json: row.json as string, highest: Number(row.highest), goneBelow: Number(row.gone) };
  };
}
