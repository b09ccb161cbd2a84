import type { CompiledQuery, Expression, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';

/**
 * A tenant's change feed (SPEC 9): every committed create, update and soft delete of a record,
 * in the order the changes committed. Each database keeps it its own way
 * (engine/dialects/<db>/event-log.ts), reached as a TenantDb's `events`; this is what they share.
 */
export interface EventLog {
  /**
   * `append`'s statement for one event, compiled and not run: for a database handle that runs it
   * right after its write, the two kept together (engine/sql/write-then.ts).
   */
  appendQuery(t: TenantDb, db: Kysely<any>, event: NewEvent): CompiledQuery;
  /** Told after a write appended events outside `append` (eventOfWrite): the database may number them later, or do nothing. */
  written(t: TenantDb): void;
  /**
   * Appends events in `trx`, the transaction of the writes they record, as its last statement.
   * Their seqs follow the order given and the order the transactions commit.
   */
  append(t: TenantDb, trx: Kysely<any>, events: readonly NewEvent[]): Promise<void>;
  /** The events after `query.after`, and the highest seq committed, read in one statement. */
  read(t: TenantDb, query: EventQuery): Promise<EventPage>;
  /**
   * `read` as the answer's JSON (each event as eventJson writes it, in a JSON array), written by
   * the database: no row objects in between, as pages of records (engine/sql/records-json.ts).
   */
  readJson(t: TenantDb, query: EventQuery): Promise<EventPageJson>;
  /** The highest seq committed (0 before the first event). */
  highest(t: TenantDb): Promise<number>;
  /**
   * A condition on an event row: written after the one at `seq` (which a reader saw as the
   * highest committed), numbered or not yet (engine/cursor/lazy.ts).
   */
  writtenAfter(t: Pick<TenantDb, 'schema'>, seq: Expression<unknown>): RawBuilder<SqlBool>;
  /** The order events were written in, numbered or not yet: an ORDER BY list over event rows. */
  readonly writeOrder: RawBuilder<unknown>;
  /**
   * Removes up to `limit` of the oldest events stamped before `olderThan` (RFC 3339), and raises
   * the feed's gone mark (EventPage.goneBelow) to the highest seq removed; returns how many.
   */
  sweep(t: TenantDb, olderThan: string, limit?: number): Promise<number>;
}

export const EVENT_OPS = ['create', 'update', 'delete'] as const;
export type EventOp = (typeof EVENT_OPS)[number];

/** The record a file's event belongs to (SPEC 13), by which the feed shows it. */
export interface EventParent {
  readonly collection: string;
  readonly id: number;
}

export interface NewEvent {
  readonly collection: string;
  readonly id: number;
  readonly op: EventOp;
  /** The collection's fields whose value the write changed. */
  readonly changed: readonly string[];
  /**
   * The record as after the change, as the JSON text a read of it answers: the write's own
   * record (the row its statement returned) as JSON.stringify writes it, which is the text the
   * database writes for a read (engine/sql/records-json.ts; test/events/events-written.test.ts compares
   * the two byte for byte).
   */
  readonly record: string;
  /** Who made the change; null when the engine runs without authentication. */
  readonly user: string | null;
  /** When, RFC 3339 UTC with milliseconds. */
  readonly at: string;
  /**
   * An update's or soft delete's row as it was before the change (the SQL flavour's rowJson of the
   * row the write replaced): a lazy snapshot's view of the record as of an earlier seq
   * (engine/cursor/lazy.ts). Never shown by the feed. Absent for a create.
   */
  readonly before?: string | undefined;
  /** A file's parent record (engine/events/event-parent.ts); absent for other collections. */
  readonly parent?: EventParent | undefined;
}

export interface EventQuery {
  /** Events with a greater seq. */
  readonly after: number;
  readonly limit: number;
  /** Only these collections (undefined: every one; empty: none). */
  readonly collections?: readonly string[] | undefined;
  /** Only these ops (undefined: every one). */
  readonly ops?: readonly EventOp[] | undefined;
  /** Events with a parent only when it is of one of these collections (undefined: any). */
  readonly parents?: readonly string[] | undefined;
  /** With `parents`: the collections whose events name their parent (Resource.eventsNameParent). */
  readonly named?: readonly string[] | undefined;
}

/** An event as stored: `changed` and `record` are JSON text, as written with the change. */
export interface StoredEvent {
  readonly seq: number;
  readonly at: string;
  readonly collection: string;
  readonly id: number;
  readonly op: EventOp;
  readonly changed: string;
  readonly record: string;
  readonly user: string | null;
  readonly parent?: EventParent | undefined;
}

export interface EventPage {
  /** In ascending seq, at most `limit`. */
  readonly events: readonly StoredEvent[];
  /** The highest seq committed when the page was read. */
  readonly highest: number;
  /** The highest seq retention removed (0: none): a position below it has lost events. */
  readonly goneBelow: number;
}

/** A page of events as the text of a JSON array (EventLog.readJson). */
export interface EventPageJson {
  readonly json: string;
  readonly highest: number;
  readonly goneBelow: number;
}

/** The event as the feed answers it: one line of JSON (`record` and `changed` as stored), a file's with its `parent`. */
export const eventJson = (e: StoredEvent): string =>
  `{"seq":${e.seq},"at":${JSON.stringify(e.at)},"collection":${JSON.stringify(e.collection)},"id":${e.id},"op":"${e.op}","changed":${e.changed},"record":${e.record},"user":${JSON.stringify(e.user)}${e.parent ? `,"parent":${JSON.stringify(e.parent)}` : ''}}`;

/** The `mrs_meta` key holding the highest seq retention removed. */
export const EVENTS_GONE_KEY = 'events_gone_below';

export const EVENTS_TABLE = 'mrs_events';

/** A stored row (columns as the tables name them) as a StoredEvent. */
export const storedEvent = (r: Record<string, unknown>): StoredEvent => ({
  seq: Number(r.seq),
  at: r.at as string,
  collection: r.collection as string,
  id: Number(r.record_id),
  op: r.op as EventOp,
  changed: r.changed as string,
  record: r.record as string,
  user: (r.username as string | null) ?? null,
  ...(r.parent_collection == null ? {} : { parent: { collection: r.parent_collection as string, id: Number(r.parent_id) } }),
});
