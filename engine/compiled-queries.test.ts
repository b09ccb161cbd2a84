import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compileOnlyDb } from '../test/support/compile-only.ts';
import { compiledOnce, compiledByKey, compiledFamily, compiledPer } from './compiled-queries.ts';

describe('queries compiled once', () => {
  it('compiles a shape once and fills each run with its own values, in parameter order', async () => {
    const { db, ran } = compileOnlyDb('sqlite');
    let builds = 0;
    const find = compiledOnce<[number, string, string]>((d, a, b, c) => {
      builds++;
      return d.selectFrom('t').selectAll().where('a', '=', a).where('b', 'in', [b, c]).where('d', '=', 'fixed').compile();
    });
    await find(db, 1, 'x', 'y');
    await find(db, 2, 'p', 'q');
    expect(builds).toBe(1);
    expect(ran.map((q) => q.sql)).toEqual(Array(2).fill('select * from "t" where "a" = ? and "b" in (?, ?) and "d" = ?'));
    expect(ran.map((q) => q.parameters)).toEqual([
      [1, 'x', 'y', 'fixed'],
      [2, 'p', 'q', 'fixed'],
    ]);
  });

  it('compiles again for another dialect or schema, but a transaction shares its database\u2019s', async () => {
    const lite = compileOnlyDb('sqlite');
    const pg = compileOnlyDb('postgres');
    const a = pg.db.withSchema('a');
    const b = pg.db.withSchema('b');
    let builds = 0;
    const find = compiledOnce<[number]>((d, id) => {
      builds++;
      return d.selectFrom('t').selectAll().where('id', '=', id).compile();
    });
    await find(lite.db, 1);
    await find(pg.db, 2);
    await find(a, 3);
    await find(b, 4);
    await find(a, 5);
    await a.transaction().execute(async (trx) => void (await find(trx, 6)));
    expect(builds).toBe(4);
    expect(lite.ran[0]!.sql).toBe('select * from "t" where "id" = ?');
    const sqls = pg.ran.filter((q) => q.sql.startsWith('select')).map((q) => [q.sql, q.parameters[0]]);
    expect(sqls).toEqual([
      ['select * from "t" where "id" = $1', 2],
      ['select * from "a"."t" where "id" = $1', 3],
      ['select * from "b"."t" where "id" = $1', 4],
      ['select * from "a"."t" where "id" = $1', 5],
      ['select * from "a"."t" where "id" = $1', 6],
    ]);
  });

  it('keeps one compiled member of a family per key', async () => {
    const { db, ran } = compileOnlyDb('sqlite');
    const builds: string[] = [];
    const byTable = compiledFamily<[number]>((table, d, id) => {
      builds.push(table);
      return d.selectFrom(table).select('id').where('id', '=', id).compile();
    });
    await byTable('one', db, 1);
    await byTable('two', db, 2);
    await byTable('one', db, 3);
    expect(builds).toEqual(['one', 'two']);
    expect(ran.map((q) => [q.sql, q.parameters])).toEqual([
      ['select "id" from "one" where "id" = ?', [1]],
      ['select "id" from "two" where "id" = ?', [2]],
      ['select "id" from "one" where "id" = ?', [3]],
    ]);
  });
});

describe('queries compiled per object', () => {
  it('keeps one compiled member per object, apart for objects of the same name', async () => {
    const { db, ran } = compileOnlyDb('sqlite');
    const one = { name: 'things', column: 'a' };
    const other = { name: 'things', column: 'b' }; // same name, another shape
    let builds = 0;
    const pick = compiledPer<typeof one, [number]>((o, d, id) => {
      builds++;
      return d.selectFrom(o.name).select(o.column).where('id', '=', id).compile();
    });
    await pick(one, db, 1);
    await pick(other, db, 2);
    await pick(one, db, 3);
    expect(builds).toBe(2);
    expect(ran.map((q) => [q.sql, q.parameters])).toEqual([
      ['select "a" from "things" where "id" = ?', [1]],
      ['select "b" from "things" where "id" = ?', [2]],
      ['select "a" from "things" where "id" = ?', [3]],
    ]);
  });
});

describe('queries compiled by key', () => {
  it('compiles a key once per database setup, fills its placeholders, and drops the least recently used past its size', async () => {
    const lite = compileOnlyDb('sqlite');
    const pg = compileOnlyDb('postgres');
    const run = compiledByKey(2);
    const builds: string[] = [];
    const get = (db: Kysely<any>, key: string, value: number) =>
      run(
        db,
        key,
        (v) => {
          builds.push(key);
          return db.selectFrom('t').selectAll().where('k', '=', key).where('v', '=', v).compile();
        },
        value,
      );
    await get(lite.db, 'a', 1);
    await get(lite.db, 'a', 2);
    await get(pg.db, 'a', 3);
    await get(lite.db, 'b', 4);
    await get(lite.db, 'a', 5); // a is now the most recent
    await get(lite.db, 'c', 6); // evicts b
    await get(lite.db, 'a', 7);
    await get(lite.db, 'b', 8);
    expect(builds).toEqual(['a', 'a', 'b', 'c', 'b']);
    expect(lite.ran.map((q) => q.parameters)).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 4],
      ['a', 5],
      ['c', 6],
      ['a', 7],
      ['b', 8],
    ]);
    expect(pg.ran.map((q) => [q.sql, q.parameters])).toEqual([['select * from "t" where "k" = $1 and "v" = $2', ['a', 3]]]);
  });
});
