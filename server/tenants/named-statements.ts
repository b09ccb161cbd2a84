import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** What the pool says when it stops naming statements: once, with the reason. */
export type OnUnnamed = (why: string) => void;

/** A statement name missing from the session it was sent to, or present on one that never prepared it. */
export const isPoolerError = (e: { code?: string } | undefined) => e?.code === '42P05' || e?.code === '26000';

export const UNNAMED_WHY =
  'a named prepared statement was not found on the session it was sent to, or found on a session that never prepared it: ' +
  'queries are spread over server sessions, as a transaction pooler (PgBouncer pool_mode = transaction) does; ' +
  'this pool sends every statement unnamed from now on (set PG_PREPARED_STATEMENTS=false to start that way)';

const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|end|abort|rollback\s*$|rollback\s+(work|transaction)\s*$)/i;

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it anew each time: for the
 * cursor snapshot that was a third of its cost. Through this pool a statement text that comes
 * back (with parameters: never a multi-command script) runs as a named prepared statement, which
 * each connection parses once. Names are bounded (`max`); texts past the bound run unnamed.
 *
 * A prepared `select *` fails with "cached plan must not change result type" once another
 * process changes the table (a migration adding a column): that connection then prepares the
 * text again under a new name and the query is retried once.
 *
 * Behind a transaction pooler a name lives on a server session the next transaction may not get:
 * the first such error turns naming off for the whole pool (`onUnnamed` says why, once), and the
 * query runs again unnamed, or, inside a transaction, fails as `transient` for its request to
 * run once more (engine/transient.ts).
 */
export function namedStatementPool(pool: pg.Pool, options: { max?: number; onUnnamed?: OnUnnamed | undefined } = {}): PostgresPool {
  const { max = 500, onUnnamed = () => {} } = options;
  const seen = new Map<string, string | null>(); // text -> its name, or null when seen once
  const renamed = new WeakMap<pg.PoolClient, Map<string, string>>();
  const inTransaction = new WeakSet<pg.PoolClient>();
  let names = 0;
  let unnamed = false;

  const nameOf = (text: string): string | undefined => {
    const known = seen.get(text);
    if (known) return known;
    if (known === undefined) {
      if (seen.size < 4 * max) seen.set(text, null);
      return undefined;
    }
    if (names >= max) return undefined;
    names++;
    const name = 'mrs_' + createHash('sha1').update(text).digest('hex').slice(0, 24);
    seen.set(text, name);
    return name;
  };

  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query(text: any, values?: readonly unknown[]): any {
      if (typeof text === 'string' && !values?.length) {
        if (TRANSACTION_START.test(text)) inTransaction.add(client);
        else if (TRANSACTION_END.test(text)) inTransaction.delete(client);
      }
      const name = !unnamed && typeof text === 'string' && values?.length ? nameOf(text) : undefined;
      if (!name) return values === undefined ? client.query(text) : client.query(text, values as unknown[]);
      const run = (n: string) => client.query({ name: n, text, values: values as unknown[] });
      const ownName = renamed.get(client)?.get(text) ?? name;
      return run(ownName).catch((e: { code?: string; message?: string }) => {
        if (isPoolerError(e)) {
          if (!unnamed) {
            unnamed = true;
            onUnnamed(UNNAMED_WHY);
          }
          // Alone, the statement runs again unnamed; in a transaction, which the error ended, the caller runs it all again.
          if (!inTransaction.has(client)) return client.query(text, values as unknown[]);
          throw Object.assign(new Error(`${e.message} (${UNNAMED_WHY})`), e, { transient: true });
        }
        if (e?.code !== '0A000' || !/cached plan must not change result type/.test(e.message ?? '')) throw e;
        let mine = renamed.get(client);
        if (!mine) renamed.set(client, (mine = new Map()));
        const next = `${name}_${Number(ownName.split('_')[2] ?? 0) + 1}`;
        mine.set(text, next);
        return run(next);
      });
    },
    release: () => client.release(),
  });

  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
