import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { run, statementsOf } from './statements.ts';

const TABLES = `create table t (id integer primary key autoincrement, "a b" text, n integer default 7, at text not null,
    deleted integer default 0 not null, v integer default 1 not null, "w?" text);
  create table u (id integer, k text);
  create index t_n on t (n); create unique index t_at on t (at);
  create table "q""t" (id integer primary key, s text default 'x')`;

/** Two databases alike: one runs each statement through statementsOf and run, the other as better-sqlite3 plainly does. */
function twins() {
  const made = [new Database(':memory:'), new Database(':memory:')] as const;
  for (const db of made) db.exec(TABLES);
  const statement = statementsOf(made[0]);
  return {
    both(sql: string, parameters: unknown[] = []) {
      const ours = run(statement(sql), parameters).rows;
      const stmt = made[1].prepare(sql);
      return { ours, plain: stmt.reader ? stmt.all(parameters) : (stmt.run(parameters), []) };
    },
  };
}

describe('statements: a one-row INSERT or UPDATE by id ... RETURNING * run as the write and a SELECT of its row', () => {
  it('answers the rows RETURNING * does, defaults, ids and versions included, and leaves other statements as they are', () => {
    const db = twins();
    const cases: [string, unknown[]][] = [
      ['insert into "t" ("a b", "at") values (?, ?) returning *', ['x', '1']],
      ['insert into "t" ("a b", "at") values (?, ?) returning *', [null, '2']],
      ['insert into "t" ("id", "at", "n") values (?, ?, ?) returning *', [40, '3', null]],
      ['insert into "t" ("at") values (?), (?) returning *', ['4', '5']],
      ['insert into "t" ("at") select ? where ? returning *', ['6', 0]],
      ['insert into "t" ("at") select ? where ? returning *', ['7', 1]],
      ['insert into "t" ("at") values (?) on conflict ("at") do update set n = n + 1 returning *', ['1']],
      ['insert into "q""t" ("s") values (?) returning *', ['y']],
      ['insert into "q""t" default values returning *', []],
      ['insert into "t" ("at") values (?) returning "id"', ['8']],
      ['update "t" set n = ? where id = ? returning *', [3, 1]],
      ['update "t" set "n" = ?, "v" = "v" + 1 where "id" = ? returning *', [4, 1]],
      ['update "t" set "n" = ? where "id" = ? and "deleted" = ? and "v" = ? returning *', [5, 1, 0, 2]],
      ['update "t" set "n" = ? where "id" = ? and "deleted" = ? and "v" = ? returning *', [6, 1, 0, 2]],
      ['update "t" set "n" = ? where "id" = ? returning *', [7, 999]],
      ['update "t" set "w?" = ?, "a b" = ? where "id" = ? returning *', ['w', 'ab', 2]],
      ['update "t" set "n" = ? where "id" = ? or "id" = ? returning *', [8, 2, 3]],
      ['update "t" set "n" = ? where "id" = ? and n in (select n from "t" where "id" = ?) returning *', [9, 3, 3]],
      ['update "t" set "id" = ? where "id" = ? returning *', [60, 3]],
      ['update "q""t" set "s" = ? where "id" = ? returning *', ['z', 1]],
      ['insert into "u" ("id", "k") values (?, ?), (?, ?)', [1, 'a', 1, 'b']],
      ['update "u" set "k" = ? where "id" = ? and "k" = ? returning *', ['c', 1, 'a']],
      ['select * from "t" order by id', []],
      ['select * from "u" order by k', []],
    ];
    for (const [sql, parameters] of cases) {
      const { ours, plain } = db.both(sql, parameters);
      expect(ours, sql).toEqual(plain);
    }
  });

  it('fails as the INSERT with RETURNING does, writing nothing', () => {
    const db = twins();
    db.both('insert into "t" ("at") values (?) returning *', ['1']);
    expect(() => db.both('insert into "t" ("at") values (?) returning *', ['1'])).toThrow(/UNIQUE/);
    expect(db.both('select count(*) as n from "t"').ours).toEqual([{ n: 1 }]);
  });
});
