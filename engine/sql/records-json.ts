import { sql, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { dialectOf } from '../dialects/index.ts';
import type { Dialect } from '../dialects/types.ts';
import type { Resource } from '../registry.ts';
import { prepared } from './prepared.ts';

/**
 * A page's records as the answer's JSON, written by the database: the rows of the given ids, in
 * the given order, as one JSON array text. On SQLite this halves a page read (ten rows as objects,
 * each turned into a record and then into JSON: ~35 us; the same JSON from json_object: ~18 us),
 * and no row object is made. The records are those `toRecord` gives (test/records-json.test.ts
 * checks the two agree); ids with no row are left out.
 */
/** A row of the resource's table (`alias`, or the table itself) as the JSON text of its record. */
export const recordJsonOf = (dialect: Dialect, resource: Resource, alias?: string): RawBuilder<string> =>
  dialect.recordJson(resource.fieldNames.map((name) => ({ name, kind: resource.fields[name]!.kind, column: sql.ref(alias ? `${alias}.${name}` : name) })));

type Statement = (db: Kysely<any>, idsJson: string) => Promise<QueryResult<{ json: string }>>;

const statements = new WeakMap<Resource, Statement>();

function statementOf(resource: Resource): Statement {
  let run = statements.get(resource);
  if (!run)
    statements.set(
      resource,
      (run = prepared<[string], { json: string }>((db, idsJson) => {
        const dialect = dialectOf(db);
        const record = recordJsonOf(dialect, resource, 'r');
        const rows = db.selectFrom(dialect.idsOfJson(idsJson).as('k')).innerJoin(`${resource.name} as r`, 'r.id', 'k.id');
        // Each record behind a comma, concatenated in the ids' order; the first comma is cut.
        const joined = dialect.concatInOrder(rows, sql`',' || ${record}`, sql.ref('k.ord'));
        return sql<{ json: string }>`select '[' || substr(${joined}, 2) || ']' as json`.compile(db);
      })),
    );
  return run;
}

/** The records with these ids, in this order, as the text of a JSON array. */
export async function recordsJson(db: Kysely<any>, resource: Resource, ids: readonly number[]): Promise<string> {
  if (ids.length === 0) return '[]';
  const { rows } = await statementOf(resource)(db, JSON.stringify(ids));
  return rows[0]!.json;
}

type ByIdStatement = (db: Kysely<any>, id: number) => Promise<QueryResult<{ json: string; deleted: unknown }>>;
const byIdStatements = new WeakMap<Resource, ByIdStatement>();

/**
 * One record as JSON text, written by the database as for a page, with its deleted flag (read
 * by id: the row is neither an object nor turned into JSON here); undefined when no row has
 * the id.
 */
export async function recordJsonById(db: Kysely<any>, resource: Resource, id: number): Promise<{ json: string; deleted: boolean } | undefined> {
  let run = byIdStatements.get(resource);
  if (!run)
    byIdStatements.set(
      resource,
      (run = prepared<[number], { json: string; deleted: unknown }>((d, id) =>
        d
          .selectFrom(resource.name)
          .select([recordJsonOf(dialectOf(d), resource).as('json'), 'deleted'])
          .where('id', '=', id)
          .compile(),
      )),
    );
  const row = (await run(db, id)).rows[0];
  return row && { json: row.json, deleted: dialectOf(db).decode('boolean', row.deleted) === true };
}
