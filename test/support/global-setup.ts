import { existsSync } from 'node:fs';
import { PGBOUNCER } from './pgbouncer.ts';

/** Says once, loudly, whether the PostgreSQL half of the suite runs. Under CI it must. */
export default function setup(): void {
  if (process.env.TEST_PGBOUNCER === 'true') {
    if (!process.env.TEST_DATABASE_URL) throw new Error('TEST_PGBOUNCER=true needs TEST_DATABASE_URL: PgBouncer fronts that server');
    if (!existsSync(PGBOUNCER)) throw new Error(`TEST_PGBOUNCER=true but ${PGBOUNCER} is missing (apt-get install pgbouncer)`);
    console.log(`\n[databases] PostgreSQL (${process.env.TEST_DATABASE_URL}) through PgBouncer in transaction mode, no named statements\n`);
    return;
  }
  if (process.env.TEST_DATABASE_URL) {
    console.log(`\n[databases] SQLite and PostgreSQL (${process.env.TEST_DATABASE_URL})\n`);
    return;
  }
  if (process.env.CI === 'true') throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL half may not be skipped');
  console.warn('\n[databases] PostgreSQL half SKIPPED: set TEST_DATABASE_URL=postgres://... to run every behaviour test on it too\n');
}
