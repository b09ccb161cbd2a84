import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
} from 'kysely';

/**
 * A Kysely instance of either dialect that compiles but runs nothing (Kysely's DummyDriver),
 * for unit tests of SQL compilation; `ran` holds every query it was asked to run.
 */
export function compileOnlyDb(kind: 'sqlite' | 'postgres'): { db: Kysely<any>; ran: CompiledQuery[] } {
  const ran: CompiledQuery[] = [];
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => (kind === 'sqlite' ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (kind === 'sqlite' ? new SqliteIntrospector(k) : new PostgresIntrospector(k)),
      createQueryCompiler: () => (kind === 'sqlite' ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
    log: (e) => void ran.push(e.query),
  });
  return { db, ran };
}
