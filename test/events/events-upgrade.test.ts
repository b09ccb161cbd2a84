import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateEngineTables } from '../../engine/schema/engine-tables.ts';
import { withEarlierTenant } from '../support/engine-migrations.ts';
import { TEST_DATABASE_URL } from '../support/pg.ts';

/**
 * PostgreSQL's feed was first numbered by the writes themselves (a counter row taken in each
 * write); engine migration 012 moves it to events numbered after they commit
 * (dialects/postgres/event-log.ts). A tenant made before keeps its events and their seqs.
 */
describe.skipIf(!TEST_DATABASE_URL)('a feed written before events were numbered after commit [postgres]', () => {
  it('keeps its events and their seqs through the migration, and numbers new events after them', async () => {
    await withEarlierTenant('012', async (t, db) => {
      // Two events as the earlier code wrote them: their seqs from the counter.
      await sql`insert into "old".mrs_events (seq, at, collection, record_id, op, changed, record, username) values
        (1, '2026-11-01T00:00:00.000Z', 'work_orders', 7, 'create', '[]', '{"id":7}', 'admin'),
        (2, '2026-11-01T00:00:01.000Z', 'work_orders', 7, 'update', '["priority"]', '{"id":7,"priority":2}', null)`.execute(db);
      await sql`update "old".mrs_event_counter set seq = 2`.execute(db);

      await migrateEngineTables(t);
      const before = await t.dialect.events.read(t, { after: 0, limit: 10 });
      expect(before.highest).toBe(2);
      expect(before.events.map((e) => [e.seq, e.op, e.record, e.user])).toEqual([
        [1, 'create', '{"id":7}', 'admin'],
        [2, 'update', '{"id":7,"priority":2}', null],
      ]);
      await t.db.transaction().execute((trx) =>
        t.dialect.events.append(t, trx, [
          {
            collection: 'work_orders',
            id: 8,
            op: 'create',
            changed: [],
            record: '{"id":8}',
            user: 'admin',
            at: '2026-11-02T00:00:00.000Z',
          },
        ]),
      );
      const after = await t.dialect.events.read(t, { after: 2, limit: 10 });
      expect(after.events.map((e) => [e.seq, e.id])).toEqual([[3, 8]]);
      expect(after.highest).toBe(3);
    });
  });
});
