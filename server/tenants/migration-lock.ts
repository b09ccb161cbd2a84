import { PostgresAdapter, PostgresDialect, sql, type DialectAdapter, type Kysely, type MigrationLockOptions } from 'kysely';

/** Kysely's own lock id, so a process on an older version and one on this one still take turns. */
const LOCK_ID = BigInt('3853314791062309107');

/**
 * Kysely's Migrator takes a session advisory lock on a connection, then runs the migrations in a
 * transaction on it, then unlocks. Behind a transaction pooler (PgBouncer `pool_mode =
 * transaction`) those three land on different server sessions: the unlock misses, and the lock
 * stays held by a pooled session until it closes, so the next migration waits for it.
 *
 * Here the lock opens the transaction itself and takes a transaction-scoped advisory lock, which
 * the Migrator's commit or rollback releases on whatever session holds it. The Migrator's own
 * `begin` then only draws PostgreSQL's "already a transaction in progress" warning.
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>, _options: MigrationLockOptions): Promise<void> {
    await sql`begin`.execute(db);
    await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_ID)})`.execute(db);
  }

  // When the Migrator's transaction never began (it failed first), this ends ours; otherwise
  // the transaction is over and PostgreSQL only warns.
  override async releaseMigrationLock(db: Kysely<any>, _options: MigrationLockOptions): Promise<void> {
    await sql`rollback`.execute(db);
  }
}

/** Kysely's PostgreSQL dialect with a migration lock that holds no session state. */
export class PoolerSafePostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionLockAdapter();
  }
}
