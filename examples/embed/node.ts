/**
 * The example on Node: SQLite through better-sqlite3 with group commit (a file, or `:memory:`),
 * or PostgreSQL through pg when DATABASE_URL is set; served by @hono/node-server.
 *
 *   node --conditions=source --import tsx examples/embed/node.ts
 */
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import { GroupCommitKysely, GroupCommitSqliteDialect } from 'maintenance-records/sqlite';
import pg from 'pg';
import { BASE_PATH, createHostApp } from './app.ts';

/** A SQLite file in WAL mode, as mrs serve keeps its tenants (`:memory:` keeps its own journal). */
function sqlite(file: string): Database.Database {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return database;
}

const url = process.env.DATABASE_URL;
const db = url
  ? new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) })
  : new GroupCommitKysely(new GroupCommitSqliteDialect(sqlite(process.env.SQLITE_FILE ?? ':memory:')));
const { app, engine } = await createHostApp(db, {
  auth: process.env.AUTH === 'off' ? 'off' : 'session',
  ...(url ? { schema: 'embed_example' } : {}),
});
const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
  console.log(`node: http://127.0.0.1:${info.port}${BASE_PATH}/maintenance/tasks on ${url ? 'PostgreSQL' : 'SQLite'}`),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void engine.close()));
}
