import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../engine/dialects/index.ts';
import { tableName } from './table-name.ts';

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
    await sql`alter table ${tableName(db, 'mrs_cursors')} alter column ids type ${chunkIds.columnType}
      using ${chunkIds.fromText(sql.ref('ids'), sql.ref('width'))}`.execute(db);
  },
};
