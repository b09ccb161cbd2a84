import { sql, type AliasedExpression, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { compiledStatement } from '../compiled-queries.ts';
import type { TenantDb } from '../dialects/types.ts';
import type { CanonicalQuery } from '../query/canonical.ts';
import { idsPerChunkSql } from './layout.ts';
import type { CursorMeta, CursorRead } from './snapshot-store.ts';
import type { MadeIds } from './lazy.ts';

/**
 * The cursor table's statements that every database writes alike: a snapshot store
 * (SnapshotStore) builds its own on them, or takes them as they are.
 */
export const CURSOR_TABLE = 'mrs_cursors';

const META = ['chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'expires_at', 'change_seq', 'as_of_id'] as const;

const storedTexts = new WeakMap<CanonicalQuery, string>();

/**
 * A head row's `query`: the canonical query's JSON. Made once for a frozen query: a search sent
 * again brings the same frozen one (operations/list.ts).
 */
export function storedQuery(query: CanonicalQuery): string {
  if (!Object.isFrozen(query)) return JSON.stringify(query);
  let text = storedTexts.get(query);
  if (text === undefined) storedTexts.set(query, (text = JSON.stringify(query)));
  return text;
}

/** A head row as the cursor's metadata. */
const toMeta = (r: Record<string, any>): CursorMeta => ({
  collection: r.collection,
  scope: r.scope,
  owner: r.owner,
  total: Number(r.total),
  width: Number(r.width),
  query: JSON.parse(r.query) as CanonicalQuery,
  expiresAt: Number(r.expires_at),
  limit: Number(r.page_size),
  changeSeq: r.change_seq === null || r.change_seq === undefined ? undefined : Number(r.change_seq),
  asOfId: r.as_of_id === null || r.as_of_id === undefined ? undefined : Number(r.as_of_id),
});

/** How a database's page read writes two things: the chunk as packed text, and its conditions. */
export interface PageReadForm {
  /** The chunk as layout.ts's packed text, whatever the column holds, as `ids`. */
  readonly ids: AliasedExpression<string, 'ids'>;
  /** A condition as the database's hot statements write it. */
  readonly condition: (c: Expression<SqlBool>) => Expression<SqlBool>;
}

/**
 * One read for any page: the cursor's head row (metadata) and the chunk rows holding the page,
 * whose range is computed in SQL from the cursor's own page size. Undefined: no such cursor.
 */
export function pageReader(form: () => PageReadForm) {
  const pageRows = compiledStatement<object, { id: string; page: number }, Record<string, any>>(
    'cursor page',
    (db, _shape, { id, page }) => {
      const { ids, condition } = form();
      // Two primary-key lookups in one statement: the head row, and the range of chunk rows the page
      // needs, bounded by the cursor's own page size (an OR of both would scan every chunk row).
      const head = db.selectFrom(CURSOR_TABLE).where('id', '=', id).where('chunk', '=', 0);
      const pageSize = head.select('page_size');
      const perChunk = head.select(sql.raw(idsPerChunkSql('width')).as('n'));
      const p = sql`cast(${page} as integer)`;
      const first = sql<number>`((${p} - 1) * (${pageSize})) / (${perChunk})`;
      const last = sql<number>`(${p} * (${pageSize}) - 1) / (${perChunk})`;
      return db
        .selectFrom(CURSOR_TABLE)
        .select([...META, 'page_size', sql<string | null>`null`.as('ids')])
        .where((eb) => condition(eb.and([eb('id', '=', id), eb('chunk', '=', 0)])))
        .unionAll(
          db
            .selectFrom(CURSOR_TABLE)
            .select([...META, 'page_size', ids])
            .where((eb) => condition(eb.and([eb('id', '=', id), eb('chunk', '>=', first), eb('chunk', '<=', last)]))),
        );
    },
  );
  return async (t: TenantDb, id: string, page: number): Promise<CursorRead | undefined> => {
    const { rows } = await pageRows.run(t.db, {}, { id, page });
    const head = rows.find((r) => Number(r.chunk) === 0);
    if (!head) return undefined;
    const chunks = new Map<number, string>();
    for (const r of rows) if (r.ids !== null) chunks.set(Number(r.chunk), r.ids);
    return { meta: toMeta(head), chunks };
  };
}

const touchHead = compiledStatement<object, { id: string; expiresAt: number }>('cursor touch', (db, _shape, p) =>
  db.updateTable(CURSOR_TABLE).set({ expires_at: p.expiresAt }).where('id', '=', p.id).where('chunk', '=', 0),
);

/** Moves the expiry on the head row, the one every read checks. */
export async function touchCursor(t: TenantDb, id: string, expiresAt: number): Promise<void> {
  await touchHead.run(t.db, {}, { id, expiresAt });
}

export async function deleteCursor(t: TenantDb, id: string): Promise<void> {
  await t.db.deleteFrom(CURSOR_TABLE).where('id', '=', id).execute();
}

/**
 * Expired cursors removed per statement. A sweep of every expired cursor at once could delete
 * hundreds of thousands of rows in one statement under constant traffic (a long pause on SQLite,
 * where nothing else runs meanwhile: BENCHMARKS.md); a batch is a few milliseconds.
 */
export const EXPIRED_CURSORS_PER_SWEEP = 256;

/** What a sweep did: the rows it removed, and the live cursors it counted (undefined: it did not count). */
export interface Swept {
  readonly removed: number;
  readonly live: number | undefined;
}

/**
 * Removes up to `limit` expired cursors, every row of each; then, when `maxLive` is finite, counts
 * the live cursors and, past `maxLive` (a flood of searches within one lifetime), removes up to
 * `limit` of those nearest their expiry (the least recently used).
 */
export async function sweepCursors(t: TenantDb, now: number, limit = EXPIRED_CURSORS_PER_SWEEP, maxLive = Infinity): Promise<Swept> {
  const expired = t.db.selectFrom(CURSOR_TABLE).select('id').where('chunk', '=', 0).where('expires_at', '<', now).limit(limit);
  const removed = Number((await t.db.deleteFrom(CURSOR_TABLE).where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
  if (removed >= limit || !Number.isFinite(maxLive)) return { removed, live: undefined };
  const { n } = await t.db
    .selectFrom(CURSOR_TABLE)
    .select(sql<number>`count(*)`.as('n'))
    .where('chunk', '=', 0)
    .executeTakeFirstOrThrow();
  const over = Number(n) - maxLive;
  if (over <= 0) return { removed, live: Number(n) };
  const oldest = t.db.selectFrom(CURSOR_TABLE).select('id').where('chunk', '=', 0).orderBy('expires_at').limit(Math.min(over, limit));
  const removedOldest = Number((await t.db.deleteFrom(CURSOR_TABLE).where('id', 'in', oldest).executeTakeFirst()).numDeletedRows);
  return { removed: removed + removedOldest, live: Number(n) - removedOldest };
}

/** How a database writes a lazy cursor's chunk rows (CursorFill): where a chunk's text goes, and a list of texts as rows. */
export interface ChunkRowsForm {
  /** The column chunk text goes in, and any other column the row needs, with its value. */
  readonly text: string;
  readonly others: Readonly<Record<string, RawBuilder<unknown>>>;
  /** A sub-select of columns `d` and `n` of the texts of `list` (a parameter), `n` counting from 1. */
  readonly rows: (list: unknown) => RawBuilder<unknown>;
  /** The chunk texts as that parameter. */
  readonly list: (texts: readonly string[]) => unknown;
}

/**
 * Fills a lazy cursor (engine/cursor/lazy.ts) with its ids: its chunk rows after the first,
 * copied from the head row's metadata but for the width, then the head row's own chunk and
 * width, in one transaction. Both only while the head is lazy, and chunk rows already there are
 * left: another process that made the same ids (they depend on the cursor's seq alone) wrote
 * the same rows.
 */
export function cursorFiller(form: () => ChunkRowsForm) {
  const insertRest = compiledStatement<object, { width: number; list: unknown; id: string }>(
    'cursor fill chunks',
    (db, _shape, { width, list, id }) => {
      const f = form();
      const others = Object.keys(f.others);
      const rows = db
        .selectFrom([`${CURSOR_TABLE} as h`, f.rows(list).as('c')])
        .select((eb) => [
          'h.id',
          eb.ref('c.n').as('chunk'),
          'h.total',
          sql<number>`cast(${width} as integer)`.as('width'),
          'h.collection',
          'h.scope',
          'h.owner',
          sql<string>`''`.as('query'),
          'h.page_size',
          'h.expires_at',
          eb.ref('c.d').as(f.text),
          ...others.map((c) => f.others[c]!.as(c)),
        ])
        .where('h.id', '=', id)
        .where('h.chunk', '=', 0)
        .where('h.as_of_id', 'is not', null);
      return db
        .insertInto(CURSOR_TABLE)
        .columns(['id', 'chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'page_size', 'expires_at', f.text, ...others])
        .expression(rows)
        .onConflict((oc) => oc.columns(['id', 'chunk']).doNothing());
    },
  );
  const fillHead = compiledStatement<object, { width: number; text: string; id: string }>('cursor fill head', (db, _shape, p) =>
    db
      .updateTable(CURSOR_TABLE)
      .set({ width: p.width, [form().text]: p.text, as_of_id: null })
      .where('id', '=', p.id)
      .where('chunk', '=', 0)
      .where('as_of_id', 'is not', null),
  );
  return async (t: TenantDb, id: string, made: MadeIds): Promise<void> => {
    await t.db.transaction().execute(async (trx) => {
      if (made.chunks.length > 1) await insertRest.run(trx, {}, { width: made.width, list: form().list(made.chunks.slice(1)), id });
      await fillHead.run(trx, {}, { width: made.width, text: made.chunks[0] ?? '', id });
    });
  };
}
