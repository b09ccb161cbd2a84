import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../dialects/types.ts';
import type { CanonicalQuery } from '../query/canonical.ts';
import type { Reserved } from '../query/reserved.ts';
import { CHUNK, NARROW_LIMIT, NARROW_WIDTH, WIDE_WIDTH } from './layout.ts';

const TABLE = 'mrs_cursors';

/** What binds a cursor: only the same collection, parent and user may use it. */
export interface CursorBinding {
  readonly collection: string;
  /** `''` for top-level lists, `parent/id` for child lists. */
  readonly scope: string;
  /** `''` when authentication is off. */
  readonly owner: string;
}

export interface CursorMeta extends CursorBinding {
  readonly total: number;
  readonly limit: number;
  readonly width: number;
  readonly query: CanonicalQuery;
  readonly expiresAt: number;
}

export interface CursorRead {
  readonly meta: CursorMeta;
  /** Chunk number -> packed ids, for the chunks asked for. */
  readonly chunks: Map<number, string>;
}

const orderSql = (order: Reserved['order']) => {
  const dir = sql.raw(order.direction);
  if (order.field === 'id') return sql`${sql.ref('id')} ${dir}`;
  const nulls = sql.raw(order.direction === 'asc' ? 'nulls last' : 'nulls first');
  return sql`${sql.ref(order.field)} ${dir} ${nulls}, ${sql.ref('id')} asc`;
};

/**
 * Snapshots the ordered ids of the matching rows into chunk rows with one INSERT ... SELECT:
 * the ids never travel to the application. Returns the total and the chunks in [first, last].
 */
export async function insertSnapshot(
  db: Kysely<any>,
  dialect: Dialect,
  args: {
    id: string;
    table: string;
    where: (eb: any) => Expression<SqlBool>;
    order: Reserved['order'];
    binding: CursorBinding;
    query: CanonicalQuery;
    expiresAt: number;
    firstChunk: number;
    lastChunk: number;
  },
): Promise<{ total: number; width: number; chunks: Map<number, string> }> {
  const width = sql<number>`case when (select max(${sql.ref('id')}) from ${sql.table(args.table)}) >= ${sql.lit(NARROW_LIMIT)} then ${sql.lit(WIDE_WIDTH)} else ${sql.lit(NARROW_WIDTH)} end`;
  const ranked = db
    .selectFrom(args.table)
    .where(args.where)
    .select([
      dialect.paddedHex(sql.ref('id'), width).as('hex'),
      sql<number>`row_number() over (order by ${orderSql(args.order)}) - 1`.as('rn'),
      sql<number>`(row_number() over (order by ${orderSql(args.order)}) - 1) / ${sql.lit(CHUNK)}`.as('chunk'),
      sql<number>`count(*) over ()`.as('total'),
      width.as('width'),
    ]);
  const b = args.binding;
  const rows = await db
    .insertInto(TABLE)
    .columns(['id', 'chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'page_size', 'expires_at', 'ids'])
    .expression(
      db
        .selectFrom(ranked.as('m'))
        .select((eb) => [
          sql.val(args.id).as('id'),
          'chunk',
          eb.fn.max('total').as('total'),
          eb.fn.max('width').as('width'),
          sql.val(b.collection).as('collection'),
          sql.val(b.scope).as('scope'),
          sql.val(b.owner).as('owner'),
          sql.val(JSON.stringify(args.query)).as('query'),
          // Parameters in a select list are text to PostgreSQL unless cast.
          sql<number>`cast(${args.query.limit} as integer)`.as('page_size'),
          sql<number>`cast(${args.expiresAt} as bigint)`.as('expires_at'),
          dialect.concatOrdered(sql.ref('hex'), sql.ref('rn')).as('ids'),
        ])
        .groupBy('chunk'),
    )
    .returning([
      'chunk',
      'total',
      'width',
      sql<string | null>`case when chunk between ${args.firstChunk} and ${args.lastChunk} then ids end`.as('ids'),
    ])
    .execute();
  if (rows.length === 0) {
    await db
      .insertInto(TABLE)
      .values({ id: args.id, chunk: 0, total: 0, width: NARROW_WIDTH, ...b, query: JSON.stringify(args.query), page_size: args.query.limit, expires_at: args.expiresAt, ids: '' })
      .execute();
    return { total: 0, width: NARROW_WIDTH, chunks: new Map() };
  }
  const chunks = new Map<number, string>();
  for (const r of rows) if (r.ids !== null) chunks.set(Number(r.chunk), r.ids);
  return { total: Number(rows[0]!.total), width: Number(rows[0]!.width), chunks };
}

const META = ['chunk', 'total', 'width', 'collection', 'scope', 'owner', 'query', 'expires_at'] as const;

const toMeta = (r: Record<string, any>): Omit<CursorMeta, 'limit'> => ({
  collection: r.collection,
  scope: r.scope,
  owner: r.owner,
  total: Number(r.total),
  width: Number(r.width),
  query: JSON.parse(r.query) as CanonicalQuery,
  expiresAt: Number(r.expires_at),
});

/**
 * One read for any page: the cursor's head row (metadata) and the chunk rows holding the page,
 * whose range is computed in SQL from the cursor's own page size. Undefined: no such cursor.
 */
export async function readPage(db: Kysely<any>, id: string, page: number): Promise<CursorRead | undefined> {
  const p = sql`cast(${page} as integer)`;
  const first = sql`((${p} - 1) * page_size) / ${sql.lit(CHUNK)}`;
  const last = sql`(${p} * page_size - 1) / ${sql.lit(CHUNK)}`;
  const rows = await db
    .selectFrom(TABLE)
    .select([...META, 'page_size', sql<string | null>`case when chunk between ${first} and ${last} then ids end`.as('ids')])
    .where('id', '=', id)
    .where((eb) => eb.or([eb('chunk', '=', 0), sql<SqlBool>`chunk between ${first} and ${last}`]))
    .execute();
  const head = rows.find((r) => Number(r.chunk) === 0);
  if (!head) return undefined;
  const chunks = new Map<number, string>();
  for (const r of rows) if (r.ids !== null) chunks.set(Number(r.chunk), r.ids);
  return { meta: { ...toMeta(head), limit: Number(head.page_size) }, chunks };
}

export async function touchSnapshot(db: Kysely<any>, id: string, expiresAt: number): Promise<void> {
  await db.updateTable(TABLE).set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function deleteSnapshot(db: Kysely<any>, id: string): Promise<void> {
  await db.deleteFrom(TABLE).where('id', '=', id).execute();
}

/** Removes expired cursors, so storage stays bounded under constant traffic. */
export async function sweepExpired(db: Kysely<any>, now: number): Promise<void> {
  await db.deleteFrom(TABLE).where('expires_at', '<', now).execute();
}
