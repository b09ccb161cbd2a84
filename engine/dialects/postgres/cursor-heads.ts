import { sql } from 'kysely';
import { compiledStatement } from '../../compiled-queries.ts';
import { CURSOR_TABLE } from '../../cursor/cursor-rows.ts';
import { LAZY } from '../../cursor/layout.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';

/** A lazy cursor's head row: its own values and what its search read. */
export interface CursorHead {
  readonly id: string;
  readonly collection: string;
  readonly scope: string;
  readonly owner: string;
  readonly query: string;
  readonly limit: number;
  readonly expiresAt: number;
  readonly total: number;
  readonly changeSeq: number;
  readonly asOfId: number;
}

interface Waiting {
  readonly head: CursorHead;
  resolve(): void;
  reject(e: unknown): void;
}

/** A tenant's heads waiting for its INSERT in flight to end, whether one is, and its lazy searches under way. */
interface Queue {
  waiting: Waiting[];
  inFlight: boolean;
  searches: number;
}

const queueOf = (t: TenantDb) => t.state.get<Queue>(writeCursorHead, () => ({ waiting: [], inFlight: false, searches: 0 }));

/**
 * Runs a lazy search, `together` when other searches of its tenant are under way: its head row
 * then goes in writeCursorHead's next INSERT; alone (and in a transaction) its own statement
 * writes it, one round trip rather than two (BENCHMARKS.md, "HTTP hot paths").
 */
export async function takingHead<R>(t: TenantDb, take: (together: boolean) => Promise<R>): Promise<R> {
  const queue = queueOf(t);
  queue.searches++;
  try {
    return await take(!t.db.isTransaction && (queue.searches > 1 || queue.inFlight));
  } finally {
    queue.searches--;
  }
}

const insertHeads = compiledStatement<{ schema: string | undefined }, { heads: string }>('cursor heads', (db, { schema }, p) => {
  const columns = sql`id text, collection text, scope text, owner text, query text, "limit" integer, "expiresAt" bigint, total integer, "changeSeq" bigint, "asOfId" bigint`;
  return sql`insert into ${tableRef({ schema }, CURSOR_TABLE)} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq, as_of_id)
    select h.id, 0, h.total, ${sql.lit(LAZY)}, h.collection, h.scope, h.owner, h.query, h."limit", h."expiresAt", '{}', h."changeSeq", h."asOfId"
    from json_to_recordset(cast(${p.heads} as json)) as h (${columns})`;
});

/**
 * Writes a new cursor's head row; resolves once it is committed. A tenant's heads that arrive
 * while its INSERT is in flight go together in the next one: a write transaction per search
 * cost PostgreSQL more than its row (BENCHMARKS.md, "HTTP hot paths").
 */
export function writeCursorHead(t: TenantDb, head: CursorHead): Promise<void> {
  const queue = queueOf(t);
  return new Promise<void>((resolve, reject) => {
    queue.waiting.push({ head, resolve, reject });
    if (!queue.inFlight) flush(t, queue);
  });
}

function flush(t: TenantDb, queue: Queue): void {
  const batch = queue.waiting;
  queue.waiting = [];
  queue.inFlight = true;
  insertHeads
    .run(t.db, { schema: t.schema }, { heads: JSON.stringify(batch.map((w) => w.head)) })
    .then(
      () => batch.forEach((w) => w.resolve()),
      (e: unknown) => batch.forEach((w) => w.reject(e)),
    )
    .finally(() => {
      queue.inFlight = false;
      if (queue.waiting.length > 0) flush(t, queue);
    });
}
