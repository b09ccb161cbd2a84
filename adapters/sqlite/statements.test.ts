import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { run, statementsOf } from './statements.ts';

const TABLES = `create table t (id integer primary key autoincrement, "a b" text, n integer default 7, at text not null,
    deleted integer default 0 not null, v integer default 1 not null);
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

describe('statements: a one-row INSERT ... RETURNING * run as the INSERT and a SELECT of its row', () => {
  it('answers the rows RETURNING * does, defaults and ids included, and leaves other statements as they are', () => {
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
      ['select * from "t" order by id', []],
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
