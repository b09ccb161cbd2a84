import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A table as this database's queries name it (in the tenant's schema, if any), for statements
 * with no query-builder form (storage parameters, ALTER COLUMN ... USING): Kysely migrations get
 * only `db`, and raw SQL gets no schema from its WithSchemaPlugin, so a compiled query tells.
 */
export function tableName(db: Kysely<any>, table: string): RawBuilder<unknown> {
  const probe = db.selectFrom(table).selectAll().compile().sql;
  return sql.raw(probe.slice(probe.indexOf(' from ') + ' from '.length));
}
