import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { compileOnlyDb } from '../../../test/support/compile-only.ts';
import { opaqueValues } from './opaque-values.ts';

const { db: compileDb } = compileOnlyDb('sqlite');

describe('opaqueValues', () => {
  it('writes the values of comparisons and IN lists as +?, keeping them parameters', () => {
    const q = compileDb
      .selectFrom('t')
      .select('id')
      .where((eb) =>
        opaqueValues(
          eb.and([
            eb('a', '=', 7),
            eb.or([eb('b', 'in', [1, 2]), eb('b', 'is', null)]),
            eb('c', '>=', 'x'),
            sql<boolean>`d glob ${'x*'}`,
            eb('e', '=', sql.lit(3)),
          ]),
        ),
      )
      .compile();
    // LIKE/GLOB patterns (raw SQL) and immediate values stay as they were.
    expect(q.sql).toBe(`select "id" from "t" where ("a" = +? and ("b" in (+?, +?) or "b" is null) and "c" >= +? and d glob ? and "e" = 3)`);
    expect(q.parameters).toEqual([7, 1, 2, 'x', 'x*']);
  });

  describe('on SQLite, it finds exactly the rows the plain parameter finds', () => {
    const raw = new Database(':memory:');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
    raw.exec('create table t (id integer primary key, i integer, s text, n any); create index t_i on t (i); create index t_s on t (s)');
    const insert = raw.prepare('insert into t (i, s, n) values (?, ?, ?)');
    afterAll(() => raw.close());

    const ids = async (where: (eb: any) => any) =>
      (await db.selectFrom('t').select('id').where(where).orderBy('id').execute()).map((r) => r.id);
    const value = fc.oneof(
      fc.integer({ min: -5, max: 5 }),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -5, max: 5 }),
      fc.constantFrom('', '1', '2.5', 'a', 'b', ' 3'),
    );

    it('for every comparison, on columns of every affinity', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(value, value, value), { minLength: 1, maxLength: 12 }),
          fc.constantFrom('i', 's', 'n'),
          fc.constantFrom('=', '<>', '<', '<=', '>', '>=', 'in', 'not in'),
          fc.array(value, { minLength: 1, maxLength: 3 }),
          async (rows, column, op, vs) => {
            raw.exec('delete from t');
            for (const r of rows) insert.run(...r);
            const cond = (eb: any) => (op === 'in' || op === 'not in' ? eb(column, op, vs) : eb(column, op, vs[0]));
            expect(await ids((eb: any) => opaqueValues(cond(eb)))).toEqual(await ids(cond));
          },
        ),
        { numRuns: 400 },
      );
    });

    it('and still answers an equality from the index', () => {
      const q = db
        .selectFrom('t')
        .select('id')
        .where((eb) => opaqueValues(eb.and([eb('i', '=', 3), eb('s', 'in', ['a', 'b'])])))
        .compile();
      const plan = raw.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING INDEX t_[is]/);
    });
  });
});
