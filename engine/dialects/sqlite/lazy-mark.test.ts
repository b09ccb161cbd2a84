import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyMarkOf, raiseLazyMark } from '../../cursor/lazy-mark.ts';

describe('the lazy-cursor mark', () => {
  const raw = new Database(':memory:');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
  raw.exec('create table mrs_meta (key text primary key, value text not null)');
  afterAll(() => raw.close());
  const markOf = async (table: string) =>
    (await db.selectNoFrom(sql<number | null>`${lazyMarkOf(db, table)}`.as('m')).executeTakeFirstOrThrow()).m;

  it('is none until raised, and is only ever raised, per collection', async () => {
    expect(await markOf('items')).toBeNull();
    await raiseLazyMark('items', db, 2_000_000_000_000);
    expect(await markOf('items')).toBe(2_000_000_000_000);
    // Another process raising it less far (a shorter cursor lifetime) leaves it where it is.
    await raiseLazyMark('items', db, 1_999_000_000_000);
    expect(await markOf('items')).toBe(2_000_000_000_000);
    await raiseLazyMark('items', db, 2_000_000_000_001);
    expect(await markOf('items')).toBe(2_000_000_000_001);
    expect(await markOf('notes')).toBeNull();
  });
});
