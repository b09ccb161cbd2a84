import { expressionBuilder, sql } from 'kysely';
import { compiledStatement } from '../../compiled-queries.ts';
import { CURSOR_TABLE, storedQuery } from '../../cursor/cursor-rows.ts';
import { LAZY } from '../../cursor/layout.ts';
import { lazyMarkOf, raiseLazyMark } from '../../cursor/lazy-mark.ts';
import { firstPageJson, sqlSetup } from '../../cursor/snapshot-sql.ts';
import type { Search, Snapshot, SnapshotArgs } from '../../cursor/snapshot-store.ts';
import type { TenantDb } from '../types.ts';
import { CHUNK_COLUMNS, changeSeq, SEARCHES_KEPT, whereOf } from './snapshot-parts.ts';

/**
 * The statement of a lazy cursor (engine/cursor/lazy.ts): the search's COUNT, page 1, the feed's
 * seq and the table's largest id, in one read of the database.
 */
const lazyStatement = compiledStatement<{ search: Search; end: number }, object, LazyRead>(
  'snapshot lazy',
  (db, { search, end }) => {
    const t = sqlSetup(db);
    const table = sql.table(search.resource.name);
    const where = whereOf(t, search);
    return sql<LazyRead>`select
    (select count(*) from ${table} where ${where(expressionBuilder())}) as total,
    ${firstPageJson(t, search, end, where)} as page, ${changeSeq} as change_seq,
    (select max(id) from ${table}) as largest, ${lazyMarkOf(db, search.resource.name)} as marked_until`;
  },
  SEARCHES_KEPT,
);

interface LazyRead {
  total: unknown;
  page: string;
  change_seq: unknown;
  largest: unknown;
  marked_until: unknown;
}

/** A lazy cursor's head row: chunk 0 without ids, with its seq and the largest id. */
const HEAD_COLUMNS = [...CHUNK_COLUMNS, 'as_of_id'] as const;
const insertLazyHead = compiledStatement<object, Record<(typeof HEAD_COLUMNS)[number], unknown>>('lazy cursor head', (db, _shape, p) =>
  db.insertInto(CURSOR_TABLE).values(Object.fromEntries(HEAD_COLUMNS.map((c) => [c, p[c]]))),
);

export async function lazySnapshot(t: TenantDb, args: SnapshotArgs): Promise<Snapshot | undefined> {
  if (args.start !== 0) return undefined; // its statement answers page 1
  const read = async () => (await lazyStatement.run(t.db, { search: args.search, end: args.end }, {})).rows[0]!;
  let row = await read();
  // Writes keep the rows this cursor needs only while the collection's mark lasts: raised first
  // when it ends too soon, then the seq read again after it (cursor/lazy-mark.ts).
  if (Number(row.marked_until ?? 0) < args.expiresAt) {
    await raiseLazyMark(args.search.resource.name, t.db, args.markUntil);
    row = await read();
  }
  const total = Number(row.total);
  const seq = Number(row.change_seq);
  const b = args.binding;
  await insertLazyHead.run(
    t.db,
    {},
    {
      id: args.id,
      chunk: 0,
      total,
      width: LAZY,
      collection: b.collection,
      scope: b.scope,
      owner: b.owner,
      query: storedQuery(args.query),
      page_size: args.query.limit,
      expires_at: args.expiresAt,
      ids: '',
      change_seq: seq,
      as_of_id: Number(row.largest ?? 0),
    },
  );
  return { total, records: { json: row.page }, changeSeq: seq };
}
