import type { Migration } from 'kysely';
import { BASELINE, ENGINE_MIGRATION_NAMES, engineMigrations, MIGRATIONS_BEFORE_BASELINE } from './migrations/index.ts';
import type { TenantDb } from '../dialects/types.ts';

/**
 * Kysely migrations by owner: the engine's own, and a host's (the service's, server/migrations/),
 * each recorded in a table of its own, so one owner's names never stand for another's.
 */
export type MigrationOwners = Readonly<Record<string, Readonly<Record<string, Migration>>>>;

export const ENGINE_OWNER = 'engine';

/** The table recording which of an owner's migrations ran. */
export const migrationTableOf = (owner: string) => `mrs_migration_${owner}`;

/** Where the release before the baseline recorded every owner's migrations, in one numbering. */
const SHARED_TABLE = 'mrs_migration';

const OWNER_NAME = /^[a-z][a-z0-9_]{0,30}$/;

/**
 * Refuses, at start, owners that would be confused with each other: the engine's own name, one
 * that cannot name a table, or a migration name two owners share (or shares with the engine's,
 * today's or before the baseline): the release before recorded every owner's in one table, and
 * a database it migrated is read by name.
 */
export function checkMigrationOwners(hosts: MigrationOwners): void {
  const ownerOf = new Map<string, string>([...MIGRATIONS_BEFORE_BASELINE, ...ENGINE_MIGRATION_NAMES].map((n) => [n, ENGINE_OWNER]));
  for (const [owner, migrations] of Object.entries(hosts)) {
    if (owner === ENGINE_OWNER) throw new Error(`migrations: "${ENGINE_OWNER}" is the engine's own owner; give the host's another name`);
    if (!OWNER_NAME.test(owner))
      throw new Error(
        `migrations: the owner "${owner}" must be lowercase letters, digits and _ (it names the table ${migrationTableOf('<owner>')})`,
      );
    for (const name of Object.keys(migrations)) {
      const other = ownerOf.get(name);
      if (other !== undefined)
        throw new Error(`migrations: "${name}" is both ${other}'s and ${owner}'s; a migration's name must be unique across owners`);
      ownerOf.set(name, owner);
    }
  }
}

/** Runs the engine's migrations in a tenant database, then each host's, in one transaction under the tenant's migration lock. */
export async function migrateEngineTables(t: TenantDb, hosts: MigrationOwners = {}): Promise<void> {
  await t.db.transaction().execute(async (trx) => {
    await t.locks.forMigration(trx, t.key);
    await migrateEngineTablesIn({ ...t, db: trx }, hosts);
  });
}

/** migrateEngineTables inside the caller's transaction, which holds the tenant's migration lock. */
export async function migrateEngineTablesIn(t: TenantDb, hosts: MigrationOwners = {}): Promise<void> {
  checkMigrationOwners(hosts);
  await migrateOwners(t, { [ENGINE_OWNER]: engineMigrations(t), ...hosts });
}

/**
 * Runs each owner's migrations, in the order given. On a database the release before the
 * baseline migrated (its migrations in SHARED_TABLE, none in the owner's table yet), what that
 * release ran is recorded as run: the engine's baseline, when it ran every engine migration
 * before it, and a host's migrations by name.
 */
export async function migrateOwners(t: TenantDb, owners: MigrationOwners): Promise<void> {
  let before: Promise<ReadonlySet<string>> | undefined;
  for (const [owner, migrations] of Object.entries(owners)) {
    let run = migrations;
    if ((await t.catalog.columns(t, migrationTableOf(owner))).size === 0) {
      before ??= namesBeforeBaseline(t);
      const ran = await before;
      if (ran.size > 0) run = owner === ENGINE_OWNER ? engineAsRan(t, migrations, ran) : hostAsRan(migrations, ran);
    }
    await runMigrations(t, owner, run);
  }
}

async function namesBeforeBaseline(t: TenantDb): Promise<ReadonlySet<string>> {
  if ((await t.catalog.columns(t, SHARED_TABLE)).size === 0) return new Set();
  const rows = await t.db.selectFrom(SHARED_TABLE).select('name').execute();
  return new Set(rows.map((r) => r.name as string));
}

/** A migration that ran before under the one shared table: recorded as run, its tables already there. */
const RAN_BEFORE: Migration = { async up() {} };

function engineAsRan(t: TenantDb, migrations: Record<string, Migration>, ran: ReadonlySet<string>): Record<string, Migration> {
  const missing = MIGRATIONS_BEFORE_BASELINE.filter((name) => !ran.has(name));
  if (missing.length === MIGRATIONS_BEFORE_BASELINE.length) return migrations;
  if (missing.length > 0)
    throw new Error(
      `migration refused in ${t.key}: its engine tables are older than the release before the baseline (they lack ${missing.join(', ')}); start it once with that release first`,
    );
  return { ...migrations, [BASELINE]: RAN_BEFORE };
}

const hostAsRan = (migrations: Record<string, Migration>, ran: ReadonlySet<string>): Record<string, Migration> =>
  Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, ran.has(name) ? RAN_BEFORE : m]));

/**
 * Runs an owner's migrations not yet recorded in its table, in the order of their names, and
 * records each, in the caller's transaction. The table is Kysely's Migrator's, so a release that
 * still runs it reads the same rows; unlike it, nothing here reads the whole database's catalog,
 * whose size grows with every tenant's schema.
 */
async function runMigrations(t: TenantDb, owner: string, migrations: Record<string, Migration>): Promise<void> {
  const table = migrationTableOf(owner);
  const made = (await t.catalog.columns(t, table)).size > 0;
  if (!made)
    await t.db.schema
      .createTable(table)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
  const ran = made ? new Set((await t.db.selectFrom(table).select('name').execute()).map((r) => r.name as string)) : new Set<string>();
  const unknown = [...ran].filter((name) => !(name in migrations));
  if (unknown.length > 0)
    throw new Error(
      `migration ${owner} in ${t.key}: ran ${unknown.join(', ')}, which this release does not know (a newer release migrated it)`,
    );
  for (const name of Object.keys(migrations).sort()) {
    if (ran.has(name)) continue;
    try {
      await migrations[name]!.up(t.db);
    } catch (e) {
      throw new Error(`migration ${owner}/${name} failed in ${t.key}: ${e instanceof Error ? e.message : String(e)}`);
    }
    await t.db.insertInto(table).values({ name, timestamp: new Date().toISOString() }).execute();
  }
}
