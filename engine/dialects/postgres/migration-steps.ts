import { sql } from 'kysely';
import type { MigrationSteps } from '../types.ts';
import { chunkIds } from './chunk-ids.ts';

/** PostgreSQL's part in the engine's own migrations (engine/schema/migrations/). */
export const postgresMigrationSteps: MigrationSteps = {
  // Cursors are throwaway: they skip the write-ahead log.
  cursorTable: (create) => create.modifyFront(sql`unlogged`),
  /**
   * A chunk row holds up to 1,920 characters of ids; with its cursor's metadata (a child list's
   * parent, a longer user name) it passes the ~2 KB at which PostgreSQL tries to compress a row's
   * long values (TOAST). Such a chunk was compressed on the way in when its digits compress,
   * tried and given up when they do not, and decompressed for every page read (BENCHMARKS.md). A
   * row is now compressed only past 8,160 bytes, which no chunk row reaches.
   */
  async cursorRowsUncompressed(db, table) {
    await sql`alter table ${table} set (toast_tuple_target = 8160)`.execute(db);
  },
  /**
   * `ids` takes the type the snapshot store packs integers in (chunk-ids.ts), in place of packed
   * text. The chunk rows already there, cursors clients may still be paging through, are
   * converted in the same statement: the same ids, in the same order and chunks.
   */
  async cursorIdsColumn(db, table) {
    await sql`alter table ${table} alter column ids type ${chunkIds.columnType}
      using ${chunkIds.fromText(sql.ref('ids'), sql.ref('width'))}`.execute(db);
  },
  async cursorDeltasColumn(db, table) {
    await sql`alter table ${table} add column deltas text`.execute(db);
  },
};
