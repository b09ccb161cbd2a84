import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { schemaOf } from '../../server/tenants/postgres.ts';

export interface DataPlace {
  readonly dataDir?: string | undefined;
  readonly databaseUrl?: string | undefined;
}

/**
 * A tenant's schema as text, read over a connection of its own (not the service's): SQLite's
 * `sqlite_master` as written (but the planner's statistics tables, which opening a file may
 * make), or PostgreSQL's columns and index definitions of the tenant schema.
 * Two equal dumps mean nothing in the schema changed.
 */
export async function schemaDump(place: DataPlace, tenant = 'demo.main'): Promise<string> {
  if (place.databaseUrl === undefined) {
    const db = new Database(join(place.dataDir!, `${tenant}.sqlite`), { readonly: true });
    try {
      return JSON.stringify(
        db.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_stat%' order by name").all(),
        null,
        1,
      );
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: place.databaseUrl });
  await client.connect();
  try {
    const schema = schemaOf(tenant);
    const columns = await client.query(
      `select table_name, ordinal_position, column_name, data_type, is_nullable, column_default, collation_name
       from information_schema.columns where table_schema = $1 order by table_name, ordinal_position`,
      [schema],
    );
    const indexes = await client.query('select tablename, indexname, indexdef from pg_indexes where schemaname = $1 order by indexname', [
      schema,
    ]);
    return JSON.stringify({ columns: columns.rows, indexes: indexes.rows }, null, 1);
  } finally {
    await client.end();
  }
}

/** Runs one statement on a tenant's database over a connection of its own. */
export async function rawQuery(place: DataPlace, text: string, tenant = 'demo.main'): Promise<Record<string, unknown>[]> {
  if (place.databaseUrl === undefined) {
    const db = new Database(join(place.dataDir!, `${tenant}.sqlite`));
    try {
      const st = db.prepare(text);
      return st.reader ? (st.all() as Record<string, unknown>[]) : (st.run(), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: place.databaseUrl });
  await client.connect();
  try {
    await client.query(`set search_path to "${schemaOf(tenant)}"`);
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
