import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** A fresh database for one test file, so parallel runs never collide; dropped by the returned function. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `mrs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

/**
 * A pool for a test database. Dropping the database ends connections by force, and a client
 * still closing then reports it: the pool swallows that instead of failing the run.
 */
export function testPool(url: string, max = 3): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {});
  return pool;
}
