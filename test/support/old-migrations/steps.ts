import { sql, type CreateTableBuilder, type Kysely, type RawBuilder } from 'kysely';
import { tableRef } from '../../../engine/dialects/table-ref.ts';
import type { TenantDb } from '../../../engine/dialects/types.ts';

/**
 * Each database's part in the previous release's engine migrations, as that release's dialects
 * and event logs had them (MigrationSteps, EventLog.createTables, upgrade and upgradeFinding).
 */
export interface OldSteps {
  cursorTable?(create: CreateTableBuilder<any, any>): CreateTableBuilder<any, any>;
  cursorRowsUncompressed?(db: Kysely<any>, table: RawBuilder<unknown>): Promise<void>;
  cursorIdsColumn?(db: Kysely<any>, table: RawBuilder<unknown>): Promise<void>;
  cursorDeltasColumn?(db: Kysely<any>, table: RawBuilder<unknown>): Promise<void>;
  createEventTables(db: Kysely<any>): Promise<void>;
  upgradeEvents?(t: TenantDb, db: Kysely<any>): Promise<void>;
  upgradeEventFinding?(t: TenantDb, db: Kysely<any>): Promise<void>;
}

const EVENTS_TABLE = 'mrs_events';
const COUNTER = 'mrs_event_counter';

async function createEventsTable(
  db: Kysely<any>,
  withSeq: (table: CreateTableBuilder<any, any>) => CreateTableBuilder<any, any>,
): Promise<void> {
  await withSeq(db.schema.createTable(EVENTS_TABLE).ifNotExists())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('collection', 'text', (c) => c.notNull())
    .addColumn('record_id', 'bigint', (c) => c.notNull())
    .addColumn('op', 'text', (c) => c.notNull())
    .addColumn('changed', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .execute();
  await db
    .insertInto('mrs_meta')
    .values({ key: 'events_gone_below', value: '0' })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

export const SQLITE_STEPS: OldSteps = {
  async createEventTables(db) {
    await createEventsTable(db, (table) => table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()));
  },
};

/** Packed text of ids `width` digits each as a bigint array. */
const fromText = (text: RawBuilder<unknown>, width: RawBuilder<unknown>) =>
  sql`cast(string_to_array(rtrim(regexp_replace(${text}, '(.{' || ${width} || '})', '\\1,', 'g'), ','), ',') as bigint[])`;

export const POSTGRES_STEPS: OldSteps = {
  cursorTable: (create) => create.modifyFront(sql`unlogged`),
  async cursorRowsUncompressed(db, table) {
    await sql`alter table ${table} set (toast_tuple_target = 8160)`.execute(db);
  },
  async cursorIdsColumn(db, table) {
    await sql`alter table ${table} alter column ids type bigint[] using ${fromText(sql.ref('ids'), sql.ref('width'))}`.execute(db);
  },
  async cursorDeltasColumn(db, table) {
    await sql`alter table ${table} add column deltas text`.execute(db);
  },
  async createEventTables(db) {
    await createEventsTable(db, (table) => table.addColumn('seq', 'bigint', (c) => c.primaryKey()));
    await db.schema
      .createTable(COUNTER)
      .ifNotExists()
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto(COUNTER).values({ seq: 0 }).execute();
  },
  async upgradeEvents(t, db) {
    await sql`alter table ${tableRef(t, EVENTS_TABLE)} drop constraint if exists ${sql.id(`${EVENTS_TABLE}_pkey`)}`.execute(db);
    await db.schema
      .alterTable(EVENTS_TABLE)
      .alterColumn('seq', (c) => c.dropNotNull())
      .execute();
    await db.schema
      .alterTable(EVENTS_TABLE)
      .addColumn('pos', 'bigserial', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex(`${EVENTS_TABLE}_seq`)
      .unique()
      .on(EVENTS_TABLE)
      .column('seq')
      .where(sql.ref('seq'), 'is not', null)
      .execute();
    await db.schema.createIndex(`${EVENTS_TABLE}_unnumbered`).on(EVENTS_TABLE).column('pos').where(sql.ref('seq'), 'is', null).execute();
  },
  async upgradeEventFinding(t, db) {
    const events = tableRef(t, EVENTS_TABLE);
    await sql`alter table ${events} add column xid xid8`.execute(db);
    await sql`alter table ${events} alter column xid set default pg_current_xact_id()`.execute(db);
    await sql`update ${events} set xid = '0' where seq is null`.execute(db);
    await sql`create index ${sql.id(`${EVENTS_TABLE}_pending`)} on ${events} (xid) where seq is null`.execute(db);
    await sql`drop index ${tableRef(t, `${EVENTS_TABLE}_unnumbered`)}`.execute(db);
    await sql`alter table ${tableRef(t, COUNTER)} add column numbered_xmin xid8`.execute(db);
  },
};
