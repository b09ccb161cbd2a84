import type { TenantDb } from '../dialects/types.ts';
import { EngineError } from '../errors.ts';
import { followUpProblems, type CanonicalQuery } from '../query/canonical.ts';
import type { ResolvedQuery } from '../query/resolve.ts';
import { cursorCacheFor, type CachedHead } from './cache.ts';
import { chunksOf, idsAt, newCursorId, pageSpan } from './layout.ts';
import { EXPIRED_CURSORS_PER_SWEEP } from './cursor-rows.ts';
import type { CursorBinding, CursorMeta, PageRecords, Search, SnapshotArgs } from './snapshot-store.ts';
import { takeSnapshot } from './strategy.ts';
import { idsAsOf, layoutOf, type LazySearch } from './lazy.ts';

export interface CursorSettings {
  /** Lifetime without use. */
  readonly ttlMs: number;
  /** The clock (tests move it). */
  readonly now: () => number;
  /** Live cursors a tenant keeps at most: past it, the sweep removes those nearest their expiry first. */
  readonly maxLive?: number;
}

/** One page of a cursor: its records, in snapshot order (see PageRecords). */
export interface CursorPage {
  readonly cursor: string;
  readonly total: number;
  readonly limit: number;
  readonly records: PageRecords;
  /** The change-feed seq the snapshot reflects (X-Change-Seq); undefined for cursors made before cursors kept it. */
  readonly changeSeq: number | undefined;
  /** The search as stored with the cursor (a later page shows records as the search asked: `$fields`, `$linked`). */
  readonly query: CanonicalQuery;
}

/** What determines a search completely (SnapshotArgs.searchKey): its table, condition, order and record shape. */
export const searchKeyOf = (s: Search, q: CanonicalQuery) =>
  JSON.stringify([
    s.resource.name,
    s.filters.map((f) => [f.field, f.op, f.values]),
    s.deleted,
    s.scope && [s.scope.field, s.scope.id],
    q.order,
  ]) + (q.fields || q.linked ? `\0${JSON.stringify([q.fields, q.linked])}` : '');

/** Whether a cursor belongs to the caller's collection, parent and user. */
const owned = (meta: CursorBinding, binding: CursorBinding) =>
  meta.collection === binding.collection && meta.scope === binding.scope && meta.owner === binding.owner;

const gone = () => new EngineError('cursor-gone', 'The cursor is unknown or expired; start the search again without $cursor.');

/**
 * Cursors of one tenant database. Use refreshes the expiry at most every `slack` ms, so a page
 * read is usually a pure read; a cursor lives at least its TTL after its last use.
 */
export function cursorsFor(tenant: TenantDb, settings: CursorSettings) {
  const store = tenant.snapshots;
  const slack = Math.min(settings.ttlMs / 10, 60_000);
  let nextSweep = 0;
  let madeSinceSweep = 0;
  const maxLive = settings.maxLive ?? Infinity;
  /** Live cursors at most: the last sweep's count plus those made here since (another process's are seen at the next count). */
  let liveAtMost = Infinity;
  const expiry = () => settings.now() + settings.ttlMs + slack;

  const cache = cursorCacheFor();

  /** The head and the chunk rows a page needs: from memory while the cursor is surely alive, else read. */
  async function pageData(
    id: string,
    page: number,
    now: number,
  ): Promise<{ head: CachedHead; chunks: ReadonlyMap<number, string> } | undefined> {
    const head = cache.head(id);
    if (head && head.expiresAt >= now) {
      const span = pageSpan(page, head.meta.limit, head.meta.total);
      const { first, last } = chunksOf(span, head.meta.width);
      const chunks = new Map<number, string>();
      for (let c = first; span.start < head.meta.total && c <= last; c++) {
        const ids = cache.chunk(id, c);
        if (ids === undefined) break;
        chunks.set(c, ids);
      }
      // A lazy head remembered may have been made since, here or by another process: read again.
      if (head.meta.asOfId === undefined && (span.start >= head.meta.total || chunks.size === last - first + 1)) return { head, chunks };
    }
    const read = await store.readPage(tenant, id, page);
    if (!read) {
      cache.forget(id);
      return undefined;
    }
    const fresh: CachedHead = { meta: read.meta, expiresAt: read.meta.expiresAt };
    cache.setHead(id, fresh);
    // A lazy head's chunk row holds no ids yet: not remembered.
    if (read.meta.asOfId === undefined) for (const [c, ids] of read.chunks) cache.setChunk(id, c, ids);
    return { head: fresh, chunks: read.chunks };
  }

  /** Lazy cursors being made by this process, by id: one making each, which every request of it waits for. */
  const making = new Map<string, Promise<void>>();

  /** Makes a lazy cursor's ids (lazy.ts) and writes them; a cursor that cannot be made is deleted, and gone. */
  async function make(id: string, meta: CursorMeta, search: LazySearch | undefined): Promise<void> {
    let run = making.get(id);
    if (!run) {
      run = (async () => {
        const ids = search ? await idsAsOf(tenant, meta, search) : 'definition-changed';
        if (typeof ids === 'string') {
          await store.delete(tenant, id);
          throw new EngineError('cursor-gone', `The cursor can no longer be read (${ids}); start the search again without $cursor.`);
        }
        const ascending = search?.order.field === 'id' && search.order.direction === 'asc';
        await store.fill(tenant, id, layoutOf(ids, ascending));
      })().finally(() => {
        making.delete(id);
        cache.forget(id);
      });
      making.set(id, run);
    }
    await run;
  }

  /**
   * At most one batch of expired cursors per new search, and none for a while once they are all
   * gone: storage stays bounded under constant traffic and no request waits for a big delete.
   */
  async function sweep() {
    const now = settings.now();
    // A flood of new searches sweeps every batch's worth of them too, but only while the live cursors
    // may be past CURSOR_MAX_LIVE: the count reads every live cursor (BENCHMARKS.md, "Cursor storage").
    const mayBeOver = madeSinceSweep >= EXPIRED_CURSORS_PER_SWEEP && liveAtMost > maxLive;
    if (now < nextSweep && !mayBeOver) return;
    madeSinceSweep = 0;
    nextSweep = now + Math.min(settings.ttlMs, 60_000); // one sweep at a time
    const swept = await store.sweep(tenant, now, EXPIRED_CURSORS_PER_SWEEP, maxLive);
    if (swept.live !== undefined) liveAtMost = swept.live;
    // Every cursor has at least one row: fewer rows than a batch of cursors means none are left.
    if (swept.removed >= EXPIRED_CURSORS_PER_SWEEP) nextSweep = now;
  }

  return {
    /**
     * Snapshots a new search and returns the requested page, by the strategy strategy.ts
     * chooses (docs/cursors.md).
     */
    async create(args: {
      /** The search as data: equal searches share their compiled SQL. */
      search: Search;
      query: ResolvedQuery;
      /** canonicalize(query): stored with the cursor. */
      canonical: CanonicalQuery;
      /** searchKeyOf(search, canonical). */
      searchKey: string;
      binding: CursorBinding;
    }): Promise<CursorPage> {
      await sweep();
      madeSinceSweep++;
      liveAtMost++;
      const id = newCursorId();
      const span = pageSpan(args.query.page, args.query.limit);
      const expiresAt = expiry();
      const snapshotArgs: SnapshotArgs = {
        id,
        search: args.search,
        binding: args.binding,
        query: args.canonical,
        searchKey: args.searchKey,
        expiresAt,
        markUntil: Math.ceil(expiresAt + settings.ttlMs), // the mark is kept as an integer
        start: span.start,
        end: span.end,
      };
      const snap = await takeSnapshot(tenant, store, snapshotArgs, settings.now());
      return {
        cursor: id,
        total: snap.total,
        limit: args.query.limit,
        records: snap.records,
        changeSeq: snap.changeSeq,
        query: args.canonical,
      };
    },

    /**
     * A page of an existing cursor, after checking it belongs here and the request repeats it
     * faithfully. `search` rebuilds a lazy cursor's search from its stored query (undefined: the
     * collection's definition no longer has what it read).
     */
    async page(
      query: ResolvedQuery,
      binding: CursorBinding,
      search: (stored: CanonicalQuery) => LazySearch | undefined,
    ): Promise<CursorPage> {
      const id = query.cursor!;
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) throw gone();
      const now = settings.now();
      let data = await pageData(id, query.page, now);
      if (!data) throw gone();
      const { head } = data;
      const { meta } = head;
      if (!owned(meta, binding)) throw gone();
      const problems = followUpProblems(meta.query, query);
      if (problems.length) throw new EngineError('invalid-query', 'A later page of a cursor must repeat its search exactly.', problems);
      if (head.expiresAt < now) {
        await store.delete(tenant, id);
        cache.forget(id);
        throw gone();
      }
      if (head.expiresAt - now < settings.ttlMs) {
        const expiresAt = expiry();
        await store.touch(tenant, id, expiresAt);
        head.expiresAt = expiresAt;
      }
      if (meta.asOfId !== undefined) {
        await make(id, meta, search(meta.query));
        data = await pageData(id, query.page, now);
        if (!data || data.head.meta.asOfId !== undefined) throw gone();
      }
      const { chunks } = data;
      const span = pageSpan(query.page, meta.limit, meta.total);
      const ids = span.start >= meta.total ? [] : idsAt(chunks, data.head.meta.width, span.start, span.end);
      return { cursor: id, total: meta.total, limit: meta.limit, records: { ids }, changeSeq: meta.changeSeq, query: meta.query };
    },
  };
}

export type Cursors = ReturnType<typeof cursorsFor>;
