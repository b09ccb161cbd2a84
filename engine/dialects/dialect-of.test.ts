// A namespace import, so the stand-in classes below keep their names (a bundler renames shadowing ones).
import * as kysely from 'kysely';
import type { DialectAdapter } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dialectOf } from './index.ts';
import { postgresDialect } from './postgres/dialect.ts';
import { sqliteDialect } from './sqlite/dialect.ts';

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

describe('dialectOf', () => {
  it('tells the dialect by the adapter class of this Kysely', () => {
    expect(dialectOf(kyselyWith(new kysely.SqliteAdapter()))).toBe(sqliteDialect);
    expect(dialectOf(kyselyWith(new kysely.PostgresAdapter()))).toBe(postgresDialect);
  });

  it('tells it for an adapter of another copy of Kysely, and for a subclass of one', () => {
    expect(dialectOf(kyselyWith(new otherCopy.SqliteAdapter() as unknown as DialectAdapter))).toBe(sqliteDialect);
    expect(dialectOf(kyselyWith(new otherCopy.PostgresAdapter() as unknown as DialectAdapter))).toBe(postgresDialect);
    class LibsqlAdapter extends otherCopy.SqliteAdapter {}
    expect(dialectOf(kyselyWith(new LibsqlAdapter() as unknown as DialectAdapter))).toBe(sqliteDialect);
  });

  it('refuses other databases', () => {
    expect(() => dialectOf(kyselyWith(new otherCopy.MysqlAdapter() as unknown as DialectAdapter))).toThrow(/SQLite and PostgreSQL/);
  });
});
