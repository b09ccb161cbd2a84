import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compileOnlyDb } from '../test/support/compile-only.ts';
import { compiledStatement, trackShapes, valueProblems } from './compiled-queries.ts';

describe('compiled per database setup', () => {
  it('compiles again for another dialect or schema, but a transaction shares its database\u2019s', async () => {
    const lite = compileOnlyDb('sqlite');
    const pg = compileOnlyDb('postgres');
    const a = pg.db.withSchema('a');
    const b = pg.db.withSchema('b');
    let builds = 0;
    const statement = compiledStatement<object, { id: number }>('find', (d, _shape, p) => {
      builds++;
      return d.selectFrom('t').selectAll().where('id', '=', p.id);
    });
    const find = (db: Kysely<any>, id: number) => statement.run(db, {}, { id });
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
});

describe('shapes kept', () => {
  it('keeps the shapes most recently used per database setup, compiling again one dropped', async () => {
    const lite = compileOnlyDb('sqlite');
    const pg = compileOnlyDb('postgres');
    const builds: string[] = [];
    const statement = compiledStatement<{ k: string }, { v: number }>(
      'kept',
      (db, { k }, p) => {
        builds.push(k);
        return db.selectFrom('t').selectAll().where('k', '=', k).where('v', '=', p.v);
      },
      2,
    );
    const get = (db: Kysely<any>, k: string, v: number) => statement.run(db, { k }, { v });
    await get(lite.db, 'a', 1);
    await get(lite.db, 'a', 2);
    await get(pg.db, 'a', 3);
    await get(lite.db, 'b', 4);
    await get(lite.db, 'a', 5); // a is now the most recent
    await get(lite.db, 'c', 6); // drops b
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

describe('compiled statements', () => {
  it('compiles once per shape and fills the named values, lists by item', async () => {
    const { db, ran } = compileOnlyDb('postgres');
    let builds = 0;
    const find = compiledStatement<{ table: string; n: number }, { id: number; in: string[] }>('find', (d, { table, n }, p) => {
      builds++;
      const items = Array.from({ length: n }, (_, i) => p.in.at(i));
      return d.selectFrom(table).selectAll().where('id', '=', p.id).where('k', 'in', items).where('d', '=', 'fixed');
    });
    await find.run(db, { table: 't', n: 2 }, { id: 1, in: ['x', 'y'] });
    await find.run(db, { table: 't', n: 2 }, { id: 2, in: ['p', 'q'] });
    await find.run(db, { table: 'u', n: 1 }, { id: 3, in: ['r'] });
    expect(builds).toBe(2);
    expect(ran.map((q) => [q.sql, q.parameters])).toEqual([
      ['select * from "t" where "id" = $1 and "k" in ($2, $3) and "d" = $4', [1, 'x', 'y', 'fixed']],
      ['select * from "t" where "id" = $1 and "k" in ($2, $3) and "d" = $4', [2, 'p', 'q', 'fixed']],
      ['select * from "u" where "id" = $1 and "k" in ($2) and "d" = $3', [3, 'r', 'fixed']],
    ]);
  });

  it('gives the builder the shape\u2019s own enumerable members only, as they were when it compiled', async () => {
    const { db } = compileOnlyDb('sqlite');
    const seen: object[] = [];
    const s = compiledStatement<{ table: string }>('seen', (d, shape) => {
      seen.push(shape);
      return d.selectFrom(shape.table).selectAll();
    });
    const shape = Object.defineProperty({ table: 't' }, 'hidden', { value: 1, enumerable: false });
    await s.run(db, shape, {});
    expect(seen).toEqual([{ table: 't' }]);
    expect(seen[0]).not.toBe(shape);
    expect('hidden' in seen[0]!).toBe(false);
  });

  it('keys a shape by its content, a frozen object by itself, and refuses what is not data', async () => {
    const { db } = compileOnlyDb('sqlite');
    const frozen = Object.freeze({ name: 'a' });
    const same = Object.freeze({ name: 'a' });
    const shapes: object[] = [
      { a: 'x', b: 'y' },
      { a: 'x', b: 'y', c: undefined },
      { b: 'y', a: 'x' },
      { a: ['x', 'y'] },
      { a: ['x,y'] },
      { a: ['x'], b: ['y'] },
      { a: ['x', ['y']] },
      { a: [['x'], 'y'] },
      { a: 1 },
      { a: '1' },
      { a: true },
      { a: null },
      { a: undefined },
      {},
      { a: {} },
      { a: [] },
      { a: { b: 1 }, c: 2 },
      { a: { b: 1, c: 2 } },
      { a: frozen },
      { a: same },
    ];
    const built: object[] = [];
    const s = compiledStatement<object>('keyed', (d, shape) => {
      built.push(shape);
      return d.selectFrom('t').selectAll();
    });
    for (const shape of shapes) await s.run(db, shape, {});
    for (const shape of shapes) await s.run(db, structuredClone(shape), {}); // equal content, other objects
    await s.run(db, { a: frozen }, {});
    expect(built.length).toBe(shapes.length + 1); // the frozen two's clones: not frozen, so by their content, one shape
    expect(() => s.run(db, { f: () => 1 }, {})).toThrow(/function/);
  });

  it('finds a statement whose SQL depends on a value, or whose values are not where the cache puts them', async () => {
    const { db } = compileOnlyDb('sqlite');
    const used = trackShapes();
    const from = used.length;
    const good = compiledStatement<{ n: number }, { id: number; ids: number[] }>('good', (d, { n }, p) =>
      d
        .selectFrom('t')
        .selectAll()
        .where('id', '=', p.id)
        .where(
          'x',
          'in',
          Array.from({ length: n }, (_, i) => p.ids.at(i)),
        ),
    );
    const bad = compiledStatement<{}, { limit: number }>('bad', (d, _s, p) => sql`select * from t limit ${sql.raw(String(p.limit))}`);
    let table = 't';
    const hidden = compiledStatement<{}, { id: number }>('hidden', (d, _s, p) => d.selectFrom(table).selectAll().where('id', '=', p.id));
    await good.run(db, { n: 2 }, { id: 1, ids: [2, 3] });
    await bad.run(db, {}, { limit: 10 });
    await hidden.run(db, {}, { id: 1 });
    table = 'u'; // read outside the shape: a cached statement would serve the old table
    const problems = Object.fromEntries(used.slice(from).map((u) => [u.statement.name, valueProblems(u).length]));
    expect(problems).toEqual({ good: 0, bad: 2, hidden: 2 });
  });
});
