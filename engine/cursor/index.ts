import type { Expression, SqlBool } from 'kysely';
import type { TenantDb } from '../dialects/types.ts';
import { EngineError } from '../errors.ts';
import { canonicalize, followUpProblems } from '../query/canonical.ts';
import type { ResolvedQuery } from '../query/resolve.ts';
import { idsAt, newCursorId, pageSpan } from './layout.ts';
import { deleteSnapshot, insertSnapshot, readPage, sweepExpired, touchSnapshot, type CursorBinding } from './store.ts';

export interface CursorSettings {
  /** Lifetime without use. */
  readonly ttlMs: number;
  /** The clock (tests move it). */
  readonly now: () => number;
}

/** The ids of one page of a cursor, in snapshot order. */
export interface CursorPage {
  readonly cursor: string;
  readonly total: number;
  readonly limit: number;
  readonly ids: number[];
}

const gone = () => new EngineError('cursor-gone', 'The cursor is unknown or expired; start the search again without $cursor.');

/**
 * Cursors of one tenant database. Use refreshes the expiry at most every `slack` ms, so a page
 * read is usually a pure read; a cursor lives at least its TTL after its last use.
 */
export function cursorsFor(tenant: TenantDb, settings: CursorSettings) {
  const { db } = tenant;
  const slack = Math.min(settings.ttlMs / 10, 60_000);
  let lastSweep = 0;
  const expiry = () => settings.now() + settings.ttlMs + slack;

  async function sweep() {
    const now = settings.now();
    if (now - lastSweep < Math.min(settings.ttlMs, 60_000)) return;
    lastSweep = now;
    await sweepExpired(db, now);
  }

  return {
    /** Snapshots a new search and returns the requested page's ids. */
    async create(args: {
      table: string;
      where: (eb: any) => Expression<SqlBool>;
      /** Determines `where` completely: searches with the same key share its compiled SQL. */
      whereKey: string;
      query: ResolvedQuery;
      binding: CursorBinding;
    }): Promise<CursorPage> {
      await sweep();
      const id = newCursorId();
      const span = pageSpan(args.query.page, args.query.limit);
      const query = canonicalize(args.query);
      const snap = await insertSnapshot(tenant, {
        id,
        table: args.table,
        where: args.where,
        order: args.query.order,
        binding: args.binding,
        query,
        searchKey: JSON.stringify([args.table, args.whereKey, query.order]),
        expiresAt: expiry(),
        firstChunk: span.firstChunk,
        lastChunk: span.lastChunk,
      });
      const end = Math.min(span.end, snap.total);
      return { cursor: id, total: snap.total, limit: args.query.limit, ids: idsAt(snap.chunks, snap.width, span.start, end) };
    },

    /** A page of an existing cursor, after checking it belongs here and the request repeats it faithfully. */
    async page(query: ResolvedQuery, binding: CursorBinding): Promise<CursorPage> {
      const id = query.cursor!;
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) throw gone();
      const read = await readPage(db, id, query.page);
      if (!read) throw gone();
      const { meta } = read;
      if (meta.collection !== binding.collection || meta.scope !== binding.scope || meta.owner !== binding.owner) throw gone();
      const problems = followUpProblems(meta.query, query);
      if (problems.length) throw new EngineError('invalid-query', 'A later page of a cursor must repeat its search exactly.', problems);
      const now = settings.now();
      if (meta.expiresAt < now) {
        await deleteSnapshot(db, id);
        throw gone();
      }
      if (meta.expiresAt - now < settings.ttlMs) await touchSnapshot(db, id, expiry());
      const span = pageSpan(query.page, meta.limit, meta.total);
      const ids = span.start >= meta.total ? [] : idsAt(read.chunks, meta.width, span.start, span.end);
      return { cursor: id, total: meta.total, limit: meta.limit, ids };
    },
  };
}

export type Cursors = ReturnType<typeof cursorsFor>;
