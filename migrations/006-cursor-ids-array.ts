import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../engine/dialects/index.ts';

/**
 * Where a database cuts snapshots into chunk rows itself (PostgreSQL), `ids` takes the type it
 * packs integers in cheapest (a bigint array: engine/dialects/postgres.ts), in place of packed
 * text. The chunk rows already there, cursors clients may still be paging through, are
 * converted in the same statement: the same ids, in the same order and chunks.
 */
export const cursorIdsArray: Migration = {
  async up(db: Kysely<any>) {
    const { chunkIds } = dialectOf(db);
    if (chunkIds.cutIn !== 'database') return;
    // The table as this database's queries name it (in the tenant's schema, if any), as in
    // migration 005: ALTER COLUMN ... USING has no query-builder form.
    const probe = db.selectFrom('mrs_cursors').selectAll().compile().sql;
    const table = sql.raw(probe.slice(probe.indexOf(' from ') + ' from '.length));
    await sql`alter table ${table} alter column ids type ${chunkIds.columnType}
      using ${chunkIds.fromText(sql.ref('ids'), sql.ref('width'))}`.execute(db);
  },
};
