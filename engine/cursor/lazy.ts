import { sql, type Expression, type SqlBool } from 'kysely';
import { EVENTS_GONE_KEY, EVENTS_TABLE } from '../events/event-log.ts';
import { orderBySql } from '../dialects/order-by.ts';
import { tableRef } from '../dialects/table-ref.ts';
import type { TenantDb } from '../dialects/types.ts';
import type { FieldKind } from '../define.ts';
import type { Reserved } from '../query/reserved.ts';
import { deltaChunks } from './ascending-ids.ts';
import { DELTA_ID_LIMIT } from './deltas.ts';
import { idsPerChunk, maxHoles, offsetOf, rangedWidth, widthFor } from './layout.ts';
import type { CursorMeta } from './snapshot-store.ts';

/**
 * Lazy snapshots. A new search asking for page 1 costs what its COUNT and page 1 cost: one
 * statement reads the total, page 1, the feed's seq S and the table's largest id in one view of
 * the database, and the cursor's head row keeps S and that id (`as_of_id`), nothing else. The
 * snapshot's ids are made when a later request of the cursor first needs them, as of S:
 *
 * - the records that match now, but for those written after S (an event with a seq above S)
 *   and those created after S (an id above the largest then: also rows written without an
 *   event, as a bulk load, whose later writes have events);
 * - and the records written after S whose row before their first write after S matched: that
 *   write's event keeps the row it replaced (NewEvent.before); a record created after S has
 *   none (or an id above the largest then), and was not there at S;
 * - in the search's order, by those rows' values.
 *
 * That is the set of records that matched at S, ordered by their values at S: what an eager
 * snapshot would have read then. It depends on S alone, so two processes making it at once
 * write the same rows. It cannot be made when events after S are gone (retention removed them)
 * or were written without their row (events written before the engine kept it): the cursor is
 * then gone (410), as a cursor lost in a crash.
 */

/** What a lazy cursor's search reads, rebuilt from its stored query (the requests that follow may leave filters out). */
export interface LazySearch {
  readonly table: string;
  readonly where: (eb: any) => Expression<SqlBool>;
  readonly order: Reserved['order'];
  /** The collection's columns a condition or order may read, with their kinds (`id` included). */
  readonly columns: readonly { readonly name: string; readonly kind: FieldKind | 'id' }[];
}

/** A lazy cursor's ids, made: the layout (width column) and its chunk rows' text, chunk 0 first. */
export interface MadeIds {
  readonly width: number;
  readonly chunks: readonly string[];
}

/**
 * Why a lazy cursor cannot be made as of its seq: it answers 410. (Also `definition-changed`,
 * told by the caller: its stored search names a field the definition no longer has.)
 */
export type Unmakeable = 'events-gone' | 'events-without-rows' | 'total-differs';

/**
 * The statement that reads a lazy cursor's ids as of its seq, in its order, as decimal text each
 * followed by a comma; whether an event after the seq lacks its row (`stale`); and the feed's
 * gone mark. Compiled without the database's plugins (the table names are written in full): its
 * CTEs are its own names, which a schema plugin would otherwise qualify. Plain Kysely: it runs
 * once a cursor, and reads far more than its compile costs.
 */
function asOfStatement(t: TenantDb, search: LazySearch, seq: number, largest: number | undefined) {
  const db = t.db.withoutPlugins();
  const table = tableRef(t, search.table);
  const events = tableRef(t, EVENTS_TABLE);
  const cols = sql.join(search.columns.map((c) => sql.ref(c.name)));
  const log = t.events;
  const s = sql`cast(${seq} as bigint)`;
  const ids = t.flavour.concatInOrder(
    db.selectFrom('mrs_asof').where(search.where),
    sql`${sql.ref('id')} || ','`,
    orderBySql(search.order),
  );
  return sql<{ ids: string; stale: unknown; gone: unknown }>`with
    mrs_after as (select record_id, op, before_row, row_number() over (partition by record_id order by ${log.writeOrder}) as n
      from ${events} where collection = ${sql.lit(search.table)} and ${log.writtenAfter(t, s)} and record_id <= cast(${largest} as bigint)),
    mrs_first as (select record_id, op, before_row from mrs_after where n = 1),
    mrs_asof as (select ${cols} from ${table} where id <= cast(${largest} as bigint) and id not in (select record_id from mrs_first)
      union all ${t.flavour.rowsOfJson(t, search.table, 'mrs_first', search.columns)})
    select ${ids} as ids,
      exists (select 1 from mrs_first where op <> 'create' and before_row is null) as stale,
      (select value from ${tableRef(t, 'mrs_meta')} where key = ${sql.lit(EVENTS_GONE_KEY)}) as gone`.compile(db);
}

/** A lazy cursor's ids as of its seq (see the module's comment), or why they cannot be made. */
export async function idsAsOf(t: TenantDb, meta: CursorMeta, search: LazySearch): Promise<Float64Array | Unmakeable> {
  const seq = meta.changeSeq ?? 0;
  const { rows } = await t.db.executeQuery(asOfStatement(t, search, seq, meta.asOfId));
  const row = rows[0]!;
  if (Number(row.gone ?? 0) > seq) return 'events-gone';
  if (row.stale === true || Number(row.stale) === 1) return 'events-without-rows';
  const ids = commaIds(row.ids ?? '');
  return ids.length === meta.total ? ids : 'total-differs';
}

/**
 * Ids written in decimal, each followed by a comma, read digit by digit: a million of them
 * split into strings first held tens of megabytes at once.
 */
export function commaIds(text: string): Float64Array {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 44) n++;
  const ids = new Float64Array(n);
  let v = 0;
  for (let i = 0, k = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      ids[k++] = v;
      v = 0;
    } else v = v * 10 + (c - 48);
  }
  return ids;
}

/**
 * Ids in snapshot order as chunk rows: ranged when they ascend with few holes (layout.ts),
 * ascending deltas when they ascend, deltas otherwise, packed at a width for ids deltas do not take.
 */
export function layoutOf(ids: Float64Array, ascending: boolean): MadeIds {
  const n = ids.length;
  let largest = 0;
  for (let i = 0; i < n; i++) if (ids[i]! > largest) largest = ids[i]!;
  if (ascending && n > 0) {
    const digits = widthFor(largest);
    const holes = ids[n - 1]! - ids[0]! + 1 - n;
    if (holes <= maxHoles(digits)) {
      let text = packed(ids[0]!, digits) + packed(ids[n - 1]!, digits);
      for (let i = 1; i < n; i++) for (let id = ids[i - 1]! + 1; id < ids[i]!; id++) text += packed(id, digits);
      return { width: rangedWidth(digits), chunks: [text] };
    }
  }
  if (largest < DELTA_ID_LIMIT) return deltaChunks(ids, ascending);
  const width = widthFor(largest);
  const per = idsPerChunk(width);
  const chunks: string[] = [];
  for (let from = 0; from < Math.max(1, n); from += per) {
    let text = '';
    for (let i = from; i < Math.min(n, from + per); i++) text += packed(ids[i]!, width);
    chunks.push(text);
  }
  return { width, chunks };
}

/** An id packed at `width` (layout.ts): id + 10^(width-1), which may be past what a double holds exactly. */
function packed(id: number, width: number): string {
  const sum = id + offsetOf(width);
  return Number.isSafeInteger(sum) ? String(sum) : String(BigInt(id) + BigInt(offsetOf(width)));
}
