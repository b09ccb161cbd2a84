import { describe, expect, it } from 'vitest';
import { postgresTenants } from '../../server/tenants/postgres.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../support/pg.ts';

// Processes starting together on a new database all make the server schema's tables at once.
describe.skipIf(!TEST_DATABASE_URL)('the server tables on PostgreSQL', () => {
  it('six stores making them at once on a new database all succeed, five times over', async () => {
    for (let round = 0; round < 5; round++) {
      const { url, drop } = await freshPostgresDatabase();
      const stores = Array.from({ length: 6 }, () => postgresTenants(url, async () => undefined, { max: 2 }));
      try {
        const results = await Promise.allSettled(
          stores.flatMap((s, i) => [s.fingerprints(), s.serverValue('seen', () => `store ${i}`), s.recordFingerprint(`t${i}`, 'f')]),
        );
        expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
        const seen = await Promise.all(stores.map((s) => s.serverValue('seen', () => 'late')));
        expect(new Set(seen).size).toBe(1);
        expect((await stores[0]!.fingerprints()).size).toBe(6);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await drop();
      }
    }
  });
});
