/**
 * The example on Node: SQLite through better-sqlite3 (a file, or `:memory:`), or PostgreSQL
 * through pg when DATABASE_URL is set; served by @hono/node-server.
 *
 *   node --conditions=source --import tsx examples/embed/node.ts
 */
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { BASE_PATH, createHostApp } from './app.ts';

const url = process.env.DATABASE_URL;
const db = new Kysely<any>({
  dialect: url
    ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) })
    : new SqliteDialect({ database: new Database(process.env.SQLITE_FILE ?? ':memory:') }),
});
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
