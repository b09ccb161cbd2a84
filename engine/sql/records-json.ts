import { sql, type Kysely, type RawBuilder } from 'kysely';
import { databaseOf } from '../dialects/index.ts';
import { jsonArrayOf } from '../dialects/json-array.ts';
import type { SqlFlavour } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import { compiledStatement } from '../compiled-queries.ts';
import { VERSION_COLUMN } from '../schema/table.ts';
import { shapedJsonOf, type RecordShape } from './record-shape.ts';

/**
 * Records as the answer's JSON, written by the database: no row object is made, none is turned
 * into a record or into JSON here. On SQLite this halves a page read (BENCHMARKS.md). The
 * records are those `toRecord` gives (test/records/records-json.test.ts checks the two agree).
 */

/** A row of the resource's table (`alias`, or the table itself) as the JSON text of its record. */
export const recordJsonOf = (flavour: SqlFlavour, resource: Resource, alias?: string): RawBuilder<string> =>
  flavour.recordJson(
    resource.fieldNames.map((name) => ({ name, kind: resource.fields[name]!.kind, column: sql.ref(alias ? `${alias}.${name}` : name) })),
  );

// Compiled once: a read by id and a page's records are on every read (BENCHMARKS.md, "hot queries compiled once").
const pageJson = compiledStatement<{ resource: Resource }, { ids: string }, { json: string }>('page json', (db, { resource }, p) => {
  const { flavour } = databaseOf(db);
  const rows = db
    .selectFrom(flavour.idsOfJson(sql<string>`${p.ids}`).as('page_ids'))
    .innerJoin(`${resource.name} as rec`, 'rec.id', 'page_ids.id');
  return sql<{
    json: string;
  }>`select ${jsonArrayOf(flavour, rows, recordJsonOf(flavour, resource, 'rec'), sql.ref('page_ids.ord'))} as json`;
});

/** The records with these ids, in this order, as the text of a JSON array; ids with no row are left out. */
export async function recordsJson(db: Kysely<any>, resource: Resource, ids: readonly number[], shape?: RecordShape): Promise<string> {
  if (ids.length === 0) return '[]';
  if (shape) return shapedRecordsJson(db, resource, ids, shape);
  const { rows } = await pageJson.run(db, { resource }, { ids: JSON.stringify(ids) });
  return rows[0]!.json;
}

async function shapedRecordsJson(db: Kysely<any>, resource: Resource, ids: readonly number[], shape: RecordShape): Promise<string> {
  const { flavour } = databaseOf(db);
  const rows = db
    .selectFrom(flavour.idsOfJson(sql<string>`${JSON.stringify(ids)}`).as('k'))
    .innerJoin(`${resource.name} as r`, 'r.id', 'k.id');
  const json = jsonArrayOf(flavour, rows, shapedJsonOf(db, resource, shape, 'r'), sql.ref('k.ord'));
  const { rows: out } = await sql<{ json: string }>`select ${json} as json`.execute(db);
  return out[0]!.json;
}

// The version beside the JSON, for the ETag, and `updated`, for Last-Modified: the same statement, no second query.
const byIdJson = compiledStatement<{ resource: Resource }, { id: number }, ByIdRow>('record json by id', (db, { resource }, p) =>
  db
    .selectFrom(resource.name)
    .select([recordJsonOf(databaseOf(db).flavour, resource).as('json'), 'deleted', sql.ref(VERSION_COLUMN).as('version'), 'updated'])
    .where('id', '=', p.id),
);

type ByIdRow = { json: string; deleted: unknown; version: unknown; updated: unknown };

export interface RecordJson {
  readonly json: string;
  readonly deleted: boolean;
  readonly version: number;
  /** RFC 3339, UTC. */
  readonly updated: string;
}

/** One record as JSON text, with its deleted flag, version and `updated` (a read by id); undefined when no row has the id. */
export async function recordJsonById(
  db: Kysely<any>,
  resource: Resource,
  id: number,
  shape?: RecordShape,
): Promise<RecordJson | undefined> {
  const row = shape
    ? ((await db
        .selectFrom(`${resource.name} as r`)
        .select([shapedJsonOf(db, resource, shape, 'r').as('json'), 'r.deleted', sql.ref(`r.${VERSION_COLUMN}`).as('version'), 'r.updated'])
        .where('r.id', '=', id)
        .executeTakeFirst()) as ByIdRow | undefined)
    : (await byIdJson.run(db, { resource }, { id })).rows[0];
  if (!row) return undefined;
  const { flavour } = databaseOf(db);
  return {
    json: row.json,
    deleted: flavour.decode('boolean', row.deleted) === true,
    version: Number(row.version),
    updated: flavour.decode('timestamp', row.updated) as string,
  };
}
