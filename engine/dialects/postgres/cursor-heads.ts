import { sql } from 'kysely';
import { compiledStatement } from '../../compiled-queries.ts';
import { CURSOR_TABLE } from '../../cursor/cursor-rows.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';

/** A lazy cursor's head row (layout.ts's width in `width`): the values a search read for it. */
export interface CursorHead {
  readonly id: string;
  readonly total: number;
  readonly width: number;
  readonly collection: string;
  readonly scope: string;
  readonly owner: string;
  readonly query: string;
  readonly page_size: number;
  readonly expires_at: number;
  readonly change_seq: number;
  readonly as_of_id: number;
}

interface Waiting {
  readonly head: CursorHead;
  resolve(): void;
  reject(e: unknown): void;
}

/** A tenant's heads waiting for its INSERT in flight to end, and whether one is. */
interface Queue {
  waiting: Waiting[];
  inFlight: boolean;
}

const insertHeads = compiledStatement<{ schema: string | undefined }, { heads: string }>('cursor heads', (db, { schema }, p) => {
  const table = tableRef({ schema }, CURSOR_TABLE);
  return sql`insert into ${table} (id, chunk, total, width, collection, scope, owner, query, page_size, expires_at, ids, change_seq, as_of_id)
    select h.id, 0, h.total, h.width, h.collection, h.scope, h.owner, h.query, h.page_size, h.expires_at, '{}', h.change_seq, h.as_of_id
    from json_populate_recordset(null::${table}, cast(${p.heads} as json)) as h`;
});

/**
 * Writes a new cursor's head row; resolves once it is committed. A tenant's heads that arrive
 * while its INSERT is in flight go together in the next one: a write transaction per search
 * cost PostgreSQL more than its row (BENCHMARKS.md, "HTTP hot paths"). In a transaction, in it.
 */
export function writeCursorHead(t: TenantDb, head: CursorHead): Promise<void> {
  if (t.db.isTransaction) return insertNow(t, [head]);
  const queue = t.state.get<Queue>(writeCursorHead, () => ({ waiting: [], inFlight: false }));
  return new Promise<void>((resolve, reject) => {
    queue.waiting.push({ head, resolve, reject });
    if (!queue.inFlight) flush(t, queue);
  });
}

const insertNow = async (t: TenantDb, heads: readonly CursorHead[]) => {
  await insertHeads.run(t.db, { schema: t.schema }, { heads: JSON.stringify(heads) });
};

function flush(t: TenantDb, queue: Queue): void {
  const batch = queue.waiting;
  queue.waiting = [];
  queue.inFlight = true;
  insertNow(
    t,
    batch.map((w) => w.head),
  )
    .then(
      () => batch.forEach((w) => w.resolve()),
      (e: unknown) => batch.forEach((w) => w.reject(e)),
    )
    .finally(() => {
      queue.inFlight = false;
      if (queue.waiting.length > 0) flush(t, queue);
    });
}
