import type { Expression, Kysely, SqlBool } from 'kysely';
import type { SqlFlavour, TenantDb } from '../dialects/types.ts';
import type { CanonicalQuery } from '../query/canonical.ts';
import type { Reserved } from '../query/reserved.ts';
import type { Filter } from '../query/resolve.ts';
import type { Resource } from '../registry.ts';
import type { RecordShape } from '../sql/record-shape.ts';
import type { Swept } from './cursor-rows.ts';
import type { MadeIds } from './lazy.ts';
import type { Strategy } from './strategy.ts';

/**
 * Where a database keeps cursor snapshots: each database has its own (engine/dialects/<db>/
 * snapshot-store.ts), owning its SQL whole; the lifecycle around it (TTL, binding, follow-up
 * checks, the process cache) is the same for all (index.ts).
 */
export interface SnapshotStore {
  /**
   * Snapshots a search into a new cursor by `strategy` (strategy.ts, which chooses it) and
   * answers the requested page; undefined, with nothing written, when the strategy does not fit
   * the search (`ranged`: its ids are not one range; `ascending`: not id order, or an id deltas
   * do not take; `lazy`: not page 1). `reference` and `ordered` fit every search.
   */
  take(t: TenantDb, args: SnapshotArgs, strategy: Strategy): Promise<Snapshot | undefined>;
  /** Below this many ids a search in id order costs less `ordered` than `ascending` (0: never). */
  readonly ascendingFrom: number;
  /**
   * Writes a lazy cursor's chunk rows and turns its head into an eager one's, in one
   * transaction; a cursor made already (by another process) is left as it is.
   */
  fill(t: TenantDb, id: string, made: MadeIds): Promise<void>;
  /** A cursor's metadata and the chunk rows holding page `page`; undefined: no such cursor. */
  readPage(t: TenantDb, id: string, page: number): Promise<CursorRead | undefined>;
  /** Moves a cursor's expiry. */
  touch(t: TenantDb, id: string, expiresAt: number): Promise<void>;
  delete(t: TenantDb, id: string): Promise<void>;
  /**
   * Removes up to `limit` expired cursors, every row of each, then, with `maxLive` finite, counts
   * the live ones and past `maxLive` removes those nearest their expiry.
   */
  sweep(t: TenantDb, now: number, limit?: number, maxLive?: number): Promise<Swept>;
}

/** What binds a cursor: only the same collection, parent and user may use it. */
export interface CursorBinding {
  readonly collection: string;
  /** `''` for top-level lists, `parent/id` for child lists. */
  readonly scope: string;
  /** `''` when authentication is off. */
  readonly owner: string;
}

export interface CursorMeta extends CursorBinding {
  readonly total: number;
  readonly limit: number;
  readonly width: number;
  readonly query: CanonicalQuery;
  readonly expiresAt: number;
  /** The change-feed seq the snapshot reflects (undefined: a cursor made before cursors kept it). */
  readonly changeSeq: number | undefined;
  /**
   * A lazy cursor's table's largest id when it was asked (engine/cursor/lazy.ts): its ids are
   * not made yet. Undefined once they are.
   */
  readonly asOfId: number | undefined;
}

export interface CursorRead {
  readonly meta: CursorMeta;
  /** Chunk number -> packed ids, for the chunks asked for. */
  readonly chunks: Map<number, string>;
}

export interface SnapshotArgs {
  id: string;
  /** The search as data: a snapshot statement's shape (compiled-queries.ts), its SQL built from it. */
  search: Search;
  binding: CursorBinding;
  query: CanonicalQuery;
  expiresAt: number;
  /**
   * Where a lazy cursor raises its collection's mark when the mark ends before `expiresAt`
   * (lazy-mark.ts): a lifetime past it, so the mark is written about once a lifetime.
   */
  markUntil: number;
  /** Positions [start, end) of the page to answer with. */
  start: number;
  end: number;
  /** Determines the search completely (collection, scope, filters with their values, order, deleted, record shape). */
  searchKey: string;
}

/**
 * A search as data: its collection, condition (filter values included: they are fixed in its
 * SQL), order and the shape of its records' JSON. Plain data and frozen definitions, so equal
 * searches are equal shapes and share their compiled statements.
 */
export interface Search {
  readonly resource: Resource;
  readonly filters: readonly Omit<Filter, 'params'>[];
  readonly deleted: boolean;
  /** A child list: the child's field that links to its parent, and the parent's id. */
  readonly scope: { readonly field: string; readonly id: number } | undefined;
  readonly order: Reserved['order'];
  /** `$fields` and `$linked` (undefined: the whole record). */
  readonly shape: RecordShape | undefined;
  /** Writes its SQL: the engine's search compiler (engine/sql/search-sql.ts), frozen, the same for every search. */
  readonly sql: SearchSql;
}

/** What writes a search's SQL: dialects are below the SQL compiler, so a search brings its own. */
export interface SearchSql {
  /** The search's condition. */
  where(search: Search, flavour: SqlFlavour): (eb: any) => Expression<SqlBool>;
  /** A row of the search's table (or of `alias`) as its record's JSON text, shaped as the search asks. */
  recordJson(db: Kysely<any>, search: Search, alias?: string): Expression<string>;
}

/**
 * The records of a page [start, end), in snapshot order: as a JSON array's text where the
 * statement that read the ids read them too (one round trip less), else the ids to read them by.
 */
export type PageRecords = { readonly json: string } | { readonly ids: readonly number[] };

export interface Snapshot {
  readonly total: number;
  readonly records: PageRecords;
  /**
   * The highest change-feed seq committed when the snapshot was taken, read in the same statement
   * as its ids (EventLog's highest): every event up to it is reflected in the snapshot, none after.
   */
  readonly changeSeq: number;
}
