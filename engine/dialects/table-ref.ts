import { sql, type RawBuilder } from 'kysely';
import type { TenantDb } from './types.ts';

/**
 * A table of the tenant's database in raw SQL (in its schema, if it has one): Kysely's schema
 * plugin rewrites only builder queries, not table names in `sql` templates.
 */
export const tableRef = (t: Pick<TenantDb, 'schema'>, name: string): RawBuilder<unknown> =>
  t.schema === undefined ? sql.table(name) : sql.id(t.schema, name);
