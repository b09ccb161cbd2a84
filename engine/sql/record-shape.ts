import { sql, type Kysely, type RawBuilder } from 'kysely';
import { databaseOf } from '../dialects/index.ts';
import { jsonArrayOf } from '../dialects/json-array.ts';
import type { ShapeNames } from '../query/shape.ts';
import type { Registry, Resource } from '../registry.ts';
import { recordJsonOf } from './records-json.ts';

/**
 * A record's JSON as `$fields` and `$linked` shape it (SPEC 14), written by the database like
 * the whole record (records-json.ts). Each linked name is a sub-select in the same statement:
 * a page costs one statement whatever its size and the names asked.
 */
export interface RecordShape {
  readonly fields: readonly string[] | undefined;
  readonly linked: readonly { readonly name: string; readonly child: Resource; readonly field: string }[];
}

/** The shape of names a query resolved (or a cursor stored); names the definitions no longer have are left out. */
export function shapeOf(registry: Registry, resource: Resource, names: ShapeNames): RecordShape | undefined {
  if (!names.fields && !names.linked) return undefined;
  const linked = (names.linked ?? []).flatMap((name) => {
    const child = registry.get(resource.linked.get(name) ?? '');
    const field = child?.parents.get(resource.name);
    return child && field ? [{ name, child, field }] : [];
  });
  return { fields: names.fields?.filter((n) => Object.hasOwn(resource.fields, n)), linked };
}

/** A row of the resource's table, as `alias` (or the table's own name), as its shaped record's JSON text. */
export function shapedJsonOf(db: Kysely<any>, resource: Resource, shape: RecordShape, alias?: string): RawBuilder<string> {
  const { flavour } = databaseOf(db);
  const at = alias ?? resource.name;
  const own = shape.fields
    ? flavour.recordJson(
        resource.fieldNames
          .filter((n) => n === 'id' || shape.fields!.includes(n))
          .map((name) => ({ name, kind: resource.fields[name]!.kind, column: sql.ref(`${at}.${name}`) })),
      )
    : recordJsonOf(flavour, resource, at);
  if (shape.linked.length === 0) return own;
  const arrays = shape.linked.map(({ name, child, field }, i) => {
    const c = `mrs_linked_${i}`;
    const rows = db
      .selectFrom(`${child.name} as ${c}`)
      .where(`${c}.${field}`, '=', sql.ref(`${at}.id`))
      .where(`${c}.deleted`, '=', sql.lit(flavour.encode('boolean', false) as boolean | number));
    return sql`${sql.lit(`${i === 0 ? '' : ','}${JSON.stringify(name)}:`)} || ${jsonArrayOf(flavour, rows, recordJsonOf(flavour, child, c), sql.ref(`${c}.id`))}`;
  });
  // A record's JSON ends with its one `}` (no field holds an object): `linked` goes before it.
  return sql<string>`rtrim(${own}, '}') || ',"linked":{' || ${sql.join(arrays, sql` || `)} || '}}'`;
}
