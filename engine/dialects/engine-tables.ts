import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { EVENTS_GONE_KEY } from '../events/event-log.ts';

/**
 * The engine's own tables as both databases create them; each database's baseline
 * (engine/dialects/<db>/engine-tables.ts) makes the rest its own way and calls these.
 */

/** Key-value settings of the engine and the server, shared by every process on the database. */
export async function createMetaTable(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mrs_meta')
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

/**
 * Idempotency keys (SPEC 10): one row per user and key, holding what the first request asked
 * (a hash of its method, path and body) and the answer it got, until `expires_at` (epoch ms).
 */
export async function createIdempotencyTable(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mrs_idempotency')
    .ifNotExists()
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('location', 'text')
    .addColumn('etag', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('mrs_idempotency_pk', ['owner', 'key'])
    .execute();
  await db.schema.createIndex('mrs_idempotency_expires_idx').ifNotExists().on('mrs_idempotency').column('expires_at').execute();
}

/**
 * A cursor's chunk rows (engine/cursor/): every row carries the cursor's metadata, then its ids,
 * which a database adds in its own type after these (metadata reads skip them).
 */
export const cursorMetadataColumns = (table: CreateTableBuilder<any, any>): CreateTableBuilder<any, any> =>
  table
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('collection', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('page_size', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull());

/**
 * A cursor's expiry lives on its head row (chunk 0), the only row a page read checks, touch
 * updates and the sweep looks for: a snapshot writes one index entry for it, not one a chunk.
 */
export async function createCursorExpiryIndex(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('mrs_cursors_head_expires_idx')
    .ifNotExists()
    .on('mrs_cursors')
    .column('expires_at')
    .where(sql.ref('chunk'), '=', 0)
    .execute();
}

/** An event's columns after its `seq` (how a database numbers events is its own: EventLog). */
export const eventColumns = (table: CreateTableBuilder<any, any>): CreateTableBuilder<any, any> =>
  table
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('collection', 'text', (c) => c.notNull())
    .addColumn('record_id', 'bigint', (c) => c.notNull())
    .addColumn('op', 'text', (c) => c.notNull())
    .addColumn('changed', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('username', 'text');

/** The feed's gone mark (EventPage.goneBelow): no event removed yet. */
export async function insertGoneMark(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('mrs_meta')
    .values({ key: EVENTS_GONE_KEY, value: '0' })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}
