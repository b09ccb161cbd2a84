import { sql } from 'kysely';
import { EVENTS_TABLE } from '../../events/event-log.ts';
import { hostDbOf } from '../../host-db.ts';
import { tableRef } from '../table-ref.ts';
import type { TenantDb } from '../types.ts';

/** Schemas one statement looks at, at most. */
const CHUNK = 500;

interface Asked {
  readonly t: TenantDb;
  readonly resolve: (highest: number) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * `highest` for many tenants of one database: the calls made in the same moment (the feed
 * watchers' polls, which fall on the same instants) are answered by one statement over their
 * schemas, which reads each counter and whether unnumbered events wait; only the tenants with
 * some are numbered, each by `number`. So an idle poll of every followed tenant costs one
 * statement, and numbering follows the tenants written to. A call inside a transaction numbers
 * at once (the statement must see what the transaction sees).
 */
export function batchedHighest(
  number: (t: TenantDb) => Promise<number>,
  counter: string,
  pendingFrom: (t: TenantDb) => unknown,
): (t: TenantDb) => Promise<number> {
  const waiting = new Map<object, Asked[]>();
  const run = async (asked: Asked[]) => {
    for (let i = 0; i < asked.length; i += CHUNK) {
      const chunk = asked.slice(i, i + CHUNK);
      const parts = chunk.map(
        ({ t }, n) =>
          sql`select ${sql.lit(n)} as n, (select seq from ${tableRef(t, counter)}) as seq,
            exists (select 1 from ${tableRef(t, EVENTS_TABLE)} where seq is null and ${pendingFrom(t)} limit 1) as pending`,
      );
      let rows: { n: number; seq: unknown; pending: boolean }[];
      try {
        rows = (await sql<{ n: number; seq: unknown; pending: boolean }>`${sql.join(parts, sql` union all `)}`.execute(chunk[0]!.t.db))
          .rows;
      } catch (e) {
        for (const a of chunk) a.reject(e);
        continue;
      }
      for (const row of rows) {
        const a = chunk[Number(row.n)]!;
        if (row.pending || row.seq === null || row.seq === undefined) number(a.t).then(a.resolve, a.reject);
        else a.resolve(Number(row.seq));
      }
    }
  };
  return (t) => {
    if (t.db.isTransaction || t.schema === undefined) return number(t);
    return new Promise<number>((resolve, reject) => {
      const host = hostDbOf(t);
      let asked = waiting.get(host);
      if (!asked) {
        waiting.set(host, (asked = []));
        const all = asked;
        setTimeout(() => {
          waiting.delete(host);
          void run(all);
        }, 0);
      }
      asked.push({ t, resolve, reject });
    });
  };
}
