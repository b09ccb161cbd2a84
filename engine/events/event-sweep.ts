import { sql } from 'kysely';
import { tableRef } from '../dialects/table-ref.ts';
import type { TenantDb } from '../dialects/types.ts';
import { EVENTS_GONE_KEY, EVENTS_TABLE } from './event-log.ts';

/** Rows one statement of a sweep looks at, at most. */
export const OLD_EVENTS_PER_STATEMENT = 1000;

/**
 * Removes the oldest events stamped before `olderThan`, among the first `limit` (seq and `at`
 * rise together, so no index on `at` is needed and a sweep reads at most `limit` rows), and
 * raises the gone mark to the highest seq removed, in one transaction.
 */
export async function sweepEvents(t: TenantDb, olderThan: string, limit = OLD_EVENTS_PER_STATEMENT): Promise<number> {
  return t.db.transaction().execute(async (trx) => {
    const oldest = sql`select o.seq from (select seq, at from ${tableRef(t, EVENTS_TABLE)} where seq is not null order by seq limit ${limit}) as o where o.at < ${olderThan}`;
    const { rows } = await sql<{ seq: unknown }>`delete from ${tableRef(t, EVENTS_TABLE)} where seq in (${oldest}) returning seq`.execute(
      trx,
    );
    if (rows.length === 0) return 0;
    const top = Math.max(...rows.map((r) => Number(r.seq)));
    await sql`update ${tableRef(t, 'mrs_meta')} set value = cast(${top} as text)
      where key = ${EVENTS_GONE_KEY} and cast(value as bigint) < ${top}`.execute(trx);
    return rows.length;
  });
}
