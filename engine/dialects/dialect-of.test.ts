// A namespace import, so the stand-in classes below keep their names (a bundler renames shadowing ones).
import * as kysely from 'kysely';
import type { DialectAdapter } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseOf } from './index.ts';
import { postgresDatabase } from './postgres/dialect.ts';
import { sqliteDatabase } from './sqlite/dialect.ts';

const kyselyWith = (adapter: DialectAdapter) =>
  new kysely.Kysely<any>({
    dialect: {
      createAdapter: () => adapter,
      createDriver: () => new kysely.DummyDriver(),
      createIntrospector: (db) => new kysely.SqliteIntrospector(db),
      createQueryCompiler: () => new kysely.SqliteQueryCompiler(),
    },
  });

/** Stand-ins for the classes of another copy of Kysely (its CommonJS build beside the ESM one). */
const otherCopy = {
  SqliteAdapter: class SqliteAdapter extends Object {},
  PostgresAdapter: class PostgresAdapter extends Object {},
  MysqlAdapter: class MysqlAdapter extends Object {},
};

describe('databaseOf', () => {
  it('tells the kind of database by the adapter class of this Kysely', () => {
    expect(databaseOf(kyselyWith(new kysely.SqliteAdapter()))).toBe(sqliteDatabase);
    expect(databaseOf(kyselyWith(new kysely.PostgresAdapter()))).toBe(postgresDatabase);
  });

  it('tells it for an adapter of another copy of Kysely, and for a subclass of one', () => {
    expect(databaseOf(kyselyWith(new otherCopy.SqliteAdapter() as unknown as DialectAdapter))).toBe(sqliteDatabase);
    expect(databaseOf(kyselyWith(new otherCopy.PostgresAdapter() as unknown as DialectAdapter))).toBe(postgresDatabase);
    class LibsqlAdapter extends otherCopy.SqliteAdapter {}
    expect(databaseOf(kyselyWith(new LibsqlAdapter() as unknown as DialectAdapter))).toBe(sqliteDatabase);
  });

  it('refuses other databases', () => {
    expect(() => databaseOf(kyselyWith(new otherCopy.MysqlAdapter() as unknown as DialectAdapter))).toThrow(/SQLite and PostgreSQL/);
  });
});
