import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedStatementPool } from '../../server/tenants/named-statements.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL, testPool } from '../support/pg.ts';

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL: repeated statements run as named prepared statements', () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let pool: ReturnType<typeof testPool>;
  let db: Kysely<any>;
  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    pool = testPool(fresh.url, 1); // one connection: every query sees the same prepared statements
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool: namedStatementPool(pool, { max: 3 }) }) });
    await sql`create table things (id int primary key, name text)`.execute(db);
    await sql`insert into things values (1, 'one'), (2, 'two')`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  const prepared = async () =>
    (await pool.query<{ name: string; statement: string }>('select name, statement from pg_prepared_statements order by prepare_time'))
      .rows;

  it('prepares a text with parameters from its second run on, up to the bound', async () => {
    const byId = (id: number) => db.selectFrom('things').selectAll().where('id', '=', id).execute();
    expect(await byId(1)).toEqual([{ id: 1, name: 'one' }]);
    expect(await prepared()).toEqual([]);
    expect(await byId(2)).toEqual([{ id: 2, name: 'two' }]);
    expect(await byId(1)).toEqual([{ id: 1, name: 'one' }]);
    const names = await prepared();
    expect(names).toHaveLength(1);
    expect(names[0]!.statement).toBe('select * from "things" where "id" = $1');
    // No parameters (begin, commit, scripts): never named.
    await sql`select 1`.execute(db);
    await sql`select 1`.execute(db);
    expect(await prepared()).toHaveLength(1);
    // Past the bound (3 here), texts run unnamed.
    for (const n of [1, 2, 3]) for (let i = 0; i < 2; i++) await sql`select ${n}::int + ${'x'.length} as v, ${String(n)} as s`.execute(db);
    for (let i = 0; i < 2; i++) await db.selectFrom('things').select('name').where('id', '>', 0).execute();
    expect(await prepared()).toHaveLength(3);
  });

  it('prepares a statement again when another connection changed its table under it', async () => {
    const own = testPool(fresh.url, 1);
    const db2 = new Kysely<any>({ dialect: new PostgresDialect({ pool: namedStatementPool(own) }) });
    try {
      const all = () => db2.selectFrom('things').selectAll().where('id', '<', 10).orderBy('id').execute();
      await all();
      expect(await all()).toHaveLength(2); // now a prepared `select *`
      await pool.query('alter table things add column colour text');
      expect(await all()).toEqual([
        { id: 1, name: 'one', colour: null },
        { id: 2, name: 'two', colour: null },
      ]);
      expect(await all()).toHaveLength(2);
      const names = (await own.query<{ name: string }>('select name from pg_prepared_statements order by prepare_time')).rows.map(
        (r) => r.name,
      );
      expect(names).toHaveLength(2);
      expect(names[1]).toBe(`${names[0]}_1`);
    } finally {
      await db2.destroy();
    }
  });
});
