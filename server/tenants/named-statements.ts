import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * A name this connection prepared is unknown to its session, or one it never prepared already
 * exists: queries are being spread over sessions, which a transaction pooler does.
 */
const behindPooler = (e: { message?: string }) =>
  Object.assign(
    new Error(
      `${e.message}: named prepared statements need one server session per connection; behind a transaction pooler such as PgBouncer set PG_PREPARED_STATEMENTS=false`,
    ),
    e,
  );

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it anew each time: for the
 * cursor snapshot that was a third of its cost. Through this pool a statement text that comes
 * back (with parameters: never a multi-command script) runs as a named prepared statement, which
 * each connection parses once. Names are bounded (`max`); texts past the bound run unnamed.
 *
 * A prepared `select *` fails with "cached plan must not change result type" once another
 * process changes the table (a migration adding a column): that connection then prepares the
 * text again under a new name and the query is retried once.
 */
export function namedStatementPool(pool: pg.Pool, max = 500): PostgresPool {
  const seen = new Map<string, string | null>(); // text -> its name, or null when seen once
  const renamed = new WeakMap<pg.PoolClient, Map<string, string>>();
  let names = 0;

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
      const name = typeof text === 'string' && values?.length ? nameOf(text) : undefined;
      if (!name) return values === undefined ? client.query(text) : client.query(text, values as unknown[]);
      const run = (n: string) => client.query({ name: n, text, values: values as unknown[] });
      const ownName = renamed.get(client)?.get(text) ?? name;
      return run(ownName).catch((e: { code?: string; message?: string }) => {
        if (e?.code === '42P05' || e?.code === '26000') throw behindPooler(e);
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
