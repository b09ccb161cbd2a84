import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { expect, it } from 'vitest';
import { createEngine, defineResource, string } from '../../engine/index.ts';

it("an embedded database gets the engine's tables and its collections, not the service's users and keys", async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  const things = defineResource({ name: 'things', fields: { label: string({ required: true }) } });
  const engine = createEngine({ db, resources: [things] });
  await engine.migrate();
  const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name);
  expect(tables).toEqual(expect.arrayContaining(['things', 'mrs_cursors', 'mrs_meta']));
  expect(tables.filter((t) => /users|roles|api_keys/.test(t))).toEqual([]);
  await engine.close();
});
