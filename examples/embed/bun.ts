/**
 * The same example on Bun: SQLite through bun:sqlite (kysely-bun-sqlite), or PostgreSQL
 * through pg when DATABASE_URL is set; served by Bun.serve.
 *
 *   npx bun examples/embed/bun.ts
 */
import { Database } from 'bun:sqlite';
import { Kysely, PostgresDialect } from 'kysely';
import { BunSqliteDialect } from 'kysely-bun-sqlite';
import pg from 'pg';
import { BASE_PATH, createHostApp } from './app.ts';

const url = process.env.DATABASE_URL;
const db = new Kysely<any>({
  dialect: url
    ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) })
    : new BunSqliteDialect({ database: new Database(process.env.SQLITE_FILE ?? ':memory:') }),
});
const { app, engine } = await createHostApp(db, {
  auth: process.env.AUTH === 'off' ? 'off' : 'session',
  ...(url ? { schema: 'embed_example' } : {}),
});
const server = Bun.serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' });
console.log(`bun: http://127.0.0.1:${server.port}${BASE_PATH}/maintenance/tasks on ${url ? 'PostgreSQL' : 'SQLite'}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.stop();
    await engine.close();
  });
}
