import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../engine/dialects/index.ts';
import { tableName } from './table-name.ts';

/**
 * Cursor chunk rows are stored as written. A chunk row holds up to 1,920 characters of ids; with
 * its cursor's metadata (a child list's parent, a longer user name) it passes the ~2 KB at which
 * PostgreSQL tries to compress a row's long values. Such a chunk was compressed on the way in
 * when its digits compress (consecutive ids: to about half; 26 us a row, measured in psql), tried
 * and given up when they do not, and decompressed for every page read. A row is now compressed
 * only past 8,160 bytes, which no chunk row reaches. The table is otherwise unchanged.
 */
export const cursorRowsUncompressed: Migration = {
  async up(db: Kysely<any>) {
    if (!dialectOf(db).compressesLongRows) return;
    await sql`alter table ${tableName(db, 'mrs_cursors')} set (toast_tuple_target = 8160)`.execute(db);
  },
};
