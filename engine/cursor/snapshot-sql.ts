import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { jsonArrayOf } from '../dialects/json-array.ts';
import { orderBySql } from '../dialects/order-by.ts';
import { databaseOf } from '../dialects/index.ts';
import type { TenantDb } from '../dialects/types.ts';
import { limitOf, offsetOf, WIDTHS } from './layout.ts';
import type { Search, SnapshotArgs } from './snapshot-store.ts';

/** Pieces of a snapshot statement that every database writes alike (see SnapshotStore). */

/** What a snapshot statement's builder knows of its database: the instance, its SQL flavour, its schema (from the shape). */
export type SqlSetup = Pick<TenantDb, 'db' | 'flavour' | 'schema'>;

export const sqlSetup = (db: Kysely<any>, schema?: string): SqlSetup => ({ db, flavour: databaseOf(db).flavour, schema });

/** The table's largest id, as `m` (null when the table is empty). */
export const largestIdQuery = (db: Kysely<any>, table: string) => db.selectFrom(table).select((eb) => eb.fn.max('id').as('m'));

/**
 * The width and offset that fit every id of the table (widthFor in SQL: the least width whose
 * limit is above the largest id), as CTEs `largest` and `w`. The narrowest width writes the
 * fewest bytes: 7 digits an id for a table of a million records instead of 10.
 */
export function widthCte(t: Pick<TenantDb, 'db'>, table: string) {
  const maxId = largestIdQuery(t.db, table);
  const ladder = (value: (width: number) => number) =>
    sql`case ${sql.join(
      WIDTHS.map((w) => sql`when largest.v < ${sql.lit(limitOf(w))} then ${sql.lit(value(w))}`),
      sql` `,
    )} end`;
  // Materialized: PostgreSQL would otherwise inline the largest id into each of the ladder's
  // 32 comparisons, each its own backward index scan.
  return sql`largest (v) as materialized (select coalesce((${maxId}), 0)),
    w (width, base) as (select ${ladder((w) => w)}, ${ladder(offsetOf)} from largest)`;
}

/**
 * The value each matching row packs: its id plus the width's base (layout.ts), the `w` CTE's,
 * or `width`'s as a literal.
 */
export const idValue = (width?: number) =>
  sql`${sql.ref('id')} + ${width === undefined ? sql`(select w.base from w)` : sql.lit(offsetOf(width))}`;

/**
 * The first `end` records of the search, in its order, as a JSON array's text: page 1 read in
 * the packing statement itself (one statement less, no ids to look up again, and the same read
 * of the database as the ids). The limit is a literal: SQLite runs the sub-select several times
 * slower with it as a parameter (BENCHMARKS.md).
 */
export function firstPageJson(t: SqlSetup, search: Search, end: number, where: (eb: any) => Expression<SqlBool>) {
  const rows = t.db.selectFrom(search.resource.name).where(where).limit(sql.lit(end));
  return jsonArrayOf(t.flavour, rows, search.sql.recordJson(t.db, search), orderBySql(search.order));
}

/**
 * Whether the snapshot's statement reads the requested page with firstPageJson: page 1 of a
 * search in id order, the first rows of the same ordered read as the ids. Any other order would
 * sort the matching rows a second time, and a later page would skip rows: there the page's ids,
 * cut from the packed ones, are the cheaper way to its rows. On PostgreSQL this also spares
 * cutting page 1's ids from the inserted chunk and joining them back.
 */
export const pageOneWithIds = (args: SnapshotArgs) => args.start === 0 && args.search.order.field === 'id';

/**
 * Whether the search reads every row of the table (or every live one) in ascending id order: it
 * may then pack them from a plain scan of the table, or snapshot them as ranged (layout.ts). A
 * child list is not one, even without filters: its parent link is a condition, which an index
 * serves.
 */
export const readsTableInIdOrder = (s: Pick<Search, 'filters' | 'scope' | 'order'>) =>
  readsWholeTable(s) && s.order.field === 'id' && s.order.direction === 'asc';

/** Whether the search reads every row of the table (or every live one), in any order: no filters, not a child list. */
export const readsWholeTable = (s: Pick<Search, 'filters' | 'scope'>) => s.scope === undefined && s.filters.length === 0;
