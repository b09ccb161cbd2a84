import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration } from 'kysely';
import { servers } from './001-servers.ts';

/**
 * The service's tables shared by every tenant (PostgreSQL's `mrs_server` schema, SQLite's catalog
 * file), recorded in that place's own `mrs_migration_service`.
 */
export const SHARED_MIGRATIONS: Record<string, Migration> = {
  '001-servers': servers,
};

/**
 * Runs the pending shared migrations. The SQLite catalog has no migration lock, so processes
 * starting together may collide on recording one: the loser tries again and finds it done.
 */
export async function migrateShared(db: Kysely<any>, schema: string | undefined, attempts = 5): Promise<void> {
  if (await allRan(db)) return;
  const migrator = new Migrator({
    db: withNarrowIntrospection(db, schema, ['mrs_migration_service', 'mrs_migration_service_lock']),
    provider: { getMigrations: async () => SHARED_MIGRATIONS },
    migrationTableName: 'mrs_migration_service',
    migrationLockTableName: 'mrs_migration_service_lock',
    ...(schema !== undefined ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt >= attempts) throw error;
    await new Promise((r) => setTimeout(r, 20 * attempt));
  }
}

/**
 * The database as the Migrator sees it: its introspection asks only whether its own two tables
 * exist. Kysely's reads every column of every table of the database, which on PostgreSQL grows with
 * the tenants' schemas and stays in the heap for the process's life (BENCHMARKS.md, "Many tenants").
 */
function withNarrowIntrospection(db: Kysely<any>, schema: string | undefined, tables: readonly string[]): Kysely<any> {
  const exists = (table: string) =>
    (schema === undefined ? db : db.withSchema(schema))
      .selectFrom(table)
      .select(sql.lit(1).as('x'))
      .limit(1)
      .execute()
      .then(
        () => true,
        () => false,
      );
  const introspection: DatabaseIntrospector = {
    // The schema is made before (postgresServerDb): the Migrator only checks it.
    getSchemas: async () => (schema === undefined ? [] : [{ name: schema }]),
    getTables: async () =>
      (await Promise.all(tables.map(async (name) => ((await exists(name)) ? [{ name, schema, isView: false, columns: [] }] : [])))).flat(),
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  return new Proxy(db, {
    get(target, key) {
      if (key === 'introspection') return introspection;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Whether every shared migration is recorded: one read. Kysely's Migrator first reads every table
 * of the database (its introspection), which on PostgreSQL grows with the tenants' schemas.
 */
async function allRan(db: Kysely<any>): Promise<boolean> {
  try {
    const rows = await db.selectFrom('mrs_migration_service').select('name').execute();
    const ran = new Set(rows.map((r) => r.name as string));
    return Object.keys(SHARED_MIGRATIONS).every((name) => ran.has(name));
  } catch {
    return false; // not made yet
  }
}
