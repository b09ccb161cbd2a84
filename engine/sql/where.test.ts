import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { postgresDatabase } from '../dialects/postgres/dialect.ts';
import { sqliteDatabase } from '../dialects/sqlite/dialect.ts';
import type { SqlFlavour } from '../dialects/types.ts';
import { valueOf } from '../errors.ts';
import { createRegistry } from '../registry.ts';
import { parseQuery } from '../query/parse.ts';
import { resolveQuery } from '../query/resolve.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';
import { compileOnlyDb } from '../../test/support/compile-only.ts';
import { searchKeyOf } from '../cursor/index.ts';
import { canonicalize } from '../query/canonical.ts';
import { searchOf, searchSql } from './search-sql.ts';
import { compileWhere } from './where.ts';

const sqliteDb = compileOnlyDb('sqlite').db;
const postgresDb = compileOnlyDb('postgres').db;
const DATABASES: [string, Kysely<any>, SqlFlavour][] = [
  ['sqlite', sqliteDb, sqliteDatabase.flavour],
  ['postgres', postgresDb, postgresDatabase.flavour],
];
const workOrder = createRegistry([workOrders, serviceRequests, notes]).get('work_orders')!;

/** The WHERE clause (after `where `) and parameters a query string compiles to. */
function where(
  db: Kysely<any>,
  flavour: SqlFlavour,
  qs: string,
  opts: { includeDeleted?: boolean; scope?: { field: string; id: number } } = {},
) {
  const q = valueOf(resolveQuery(parseQuery(new URLSearchParams(qs)), workOrder));
  const compiled = db
    .selectFrom('work_orders')
    .select('id')
    .where(compileWhere(q.filters, flavour, { includeDeleted: opts.includeDeleted ?? q.deleted, scope: opts.scope }))
    .compile();
  return { sql: compiled.sql.replace(/^select "id" from "work_orders" where /, ''), parameters: compiled.parameters };
}

// [title, query string, sqlite [sql, params], postgres [sql, params]] -- without $deleted=true
// every clause starts with the soft-delete rule.
const cases: [string, string, [string, unknown[]], [string, unknown[]]][] = [
  ['no filter: live records only', '', ['"deleted" = ?', [0]], ['"deleted" = $1', [false]]],
  ['$deleted=true: no rule at all', '$deleted=true', ['1 = 1', []], ['1 = 1', []]],
  ['eq', 'department_id=7', ['("deleted" = ? and "department_id" = ?)', [0, 7]], ['("deleted" = $1 and "department_id" = $2)', [false, 7]]],
  [
    'repeated eq, plain and :eq: IN',
    'department_id=1&department_id:eq=2',
    ['("deleted" = ? and "department_id" in (?, ?))', [0, 1, 2]],
    ['("deleted" = $1 and "department_id" in ($2, $3))', [false, 1, 2]],
  ],
  [
    'ne matches empty values too',
    'priority:ne=2',
    ['("deleted" = ? and ("priority" <> ? or "priority" is null))', [0, 2]],
    ['("deleted" = $1 and ("priority" <> $2 or "priority" is null))', [false, 2]],
  ],
  [
    'repeated ne: NOT IN, or empty',
    'priority:ne=2&priority:ne=3',
    ['("deleted" = ? and ("priority" not in (?, ?) or "priority" is null))', [0, 2, 3]],
    ['("deleted" = $1 and ("priority" not in ($2, $3) or "priority" is null))', [false, 2, 3]],
  ],
  [
    'the comparisons',
    'priority:gt=1&priority:gte=2&priority:lt=5&priority:lte=4',
    ['("deleted" = ? and "priority" > ? and "priority" >= ? and "priority" < ? and "priority" <= ?)', [0, 1, 2, 5, 4]],
    ['("deleted" = $1 and "priority" > $2 and "priority" >= $3 and "priority" < $4 and "priority" <= $5)', [false, 1, 2, 5, 4]],
  ],
  [
    'dates as parameters',
    'created:gte=2024-01-01&created:lte=2024-01-31',
    ['("deleted" = ? and "created" >= ? and "created" <= ?)', [0, '2024-01-01', '2024-01-31']],
    ['("deleted" = $1 and "created" >= $2 and "created" <= $3)', [false, '2024-01-01', '2024-01-31']],
  ],
  [
    'null, true and false',
    'priority:null=&service_request_id:null=false',
    ['("deleted" = ? and "priority" is null and "service_request_id" is not null)', [0]],
    ['("deleted" = $1 and "priority" is null and "service_request_id" is not null)', [false]],
  ],
  [
    'like: GLOB on SQLite (case-sensitive), LIKE with an escape on PostgreSQL',
    'status:like=a\\%25_%25',
    ['("deleted" = ? and "status" glob ?)', [0, 'a%?*']],
    ['("deleted" = $1 and "status" like $2 escape \'\\\')', [false, 'a\\%_%']],
  ],
  [
    'repeated like: any of',
    'status:like=a%25&status:like=*b',
    ['("deleted" = ? and ("status" glob ? or "status" glob ?))', [0, 'a*', '[*]b']],
    ['("deleted" = $1 and ("status" like $2 escape \'\\\' or "status" like $3 escape \'\\\'))', [false, 'a%', '*b']],
  ],
  [
    'ilike: LIKE on SQLite (ASCII case folding), ILIKE on PostgreSQL',
    'status:ilike=Op%25',
    ['("deleted" = ? and "status" like ? escape \'\\\')', [0, 'Op%']],
    ['("deleted" = $1 and "status" ilike $2 escape \'\\\')', [false, 'Op%']],
  ],
  [
    'a value that looks like SQL stays a parameter',
    "status=x'); drop table work_orders; --",
    ['("deleted" = ? and "status" = ?)', [0, "x'); drop table work_orders; --"]],
    ['("deleted" = $1 and "status" = $2)', [false, "x'); drop table work_orders; --"]],
  ],
];

describe.each(DATABASES)('compileWhere on %s', (name, db, flavour) => {
  it.each(cases)('%s: %s', (_title, qs, sqlite, postgres) => {
    const [sql, parameters] = name === 'sqlite' ? sqlite : postgres;
    const got = where(db, flavour, qs);
    expect(got.sql).toBe(sql);
    expect(got.parameters).toEqual(parameters);
  });

  it('a child list is scoped to its parent', () => {
    const got = where(db, flavour, 'priority=1', { scope: { field: 'service_request_id', id: 9 } });
    expect(got.sql).toMatch(/^\("service_request_id" = (\?|\$1) and "deleted" = (\?|\$2) and "priority" = (\?|\$3)\)$/);
    expect(got.parameters).toEqual([9, flavour.encode('boolean', false), 1]);
  });

  it('many like patterns nest as a balanced tree (SQLite refuses expressions over 1,000 deep)', () => {
    const n = 3000;
    const qs = Array.from({ length: n }, (_, i) => `status:like=${i}`).join('&');
    const got = where(db, flavour, qs);
    expect(got.parameters).toHaveLength(n + 1);
    // A flat `a or b or c ...` is as deep as it is long once SQLite parses it: each
    // parenthesized group must hold at most one `or`, and the nesting stays logarithmic.
    const ors: number[] = [0];
    let max = 0;
    for (const token of got.sql.match(/\(|\)| or /g)!) {
      if (token === '(') ors.push(0);
      else if (token === ')') expect(ors.pop()).toBeLessThanOrEqual(1);
      else ors[ors.length - 1]!++;
      max = Math.max(max, ors.length);
    }
    expect(max).toBeLessThanOrEqual(Math.ceil(Math.log2(n)) + 3);
  });
});

describe("a search's key (SearchStats's, searchKeyOf)", () => {
  const keyed = (qs: string, opts: { includeDeleted?: boolean; scope?: { field: string; id: number } } = {}) => {
    const q = valueOf(resolveQuery(parseQuery(new URLSearchParams(qs)), workOrder));
    const search = searchOf(workOrder, { ...q, deleted: opts.includeDeleted ?? q.deleted }, undefined, opts.scope);
    const { sql, parameters } = sqliteDb
      .selectFrom('work_orders')
      .select('id')
      .where(searchSql.where(search, sqliteDatabase.flavour))
      .compile();
    return { key: searchKeyOf(search, canonicalize(q)), sql: JSON.stringify([sql, parameters]) };
  };
  // Each differs from the first in one thing the condition reads.
  const variants: [string, string, { includeDeleted?: boolean; scope?: { field: string; id: number } }][] = [
    ['the base', 'priority=1&status=open', {}],
    ['a value', 'priority=2&status=open', {}],
    ['a value of another type', 'priority=1&status=1', {}],
    ['an operator', 'priority:gte=1&status=open', {}],
    ['a field', 'department_id=1&status=open', {}],
    ['a repeat', 'priority=1&priority=3&status=open', {}],
    ['$deleted', 'priority=1&status=open', { includeDeleted: true }],
    ['a parent', 'priority=1&status=open', { scope: { field: 'service_request_id', id: 9 } }],
    ["another parent's id", 'priority=1&status=open', { scope: { field: 'service_request_id', id: 10 } }],
  ];

  it('is the same for the same search, and so is the SQL', () => {
    for (const [, qs, opts] of variants) expect(keyed(qs, opts)).toEqual(keyed(qs, opts));
  });

  it('differs whenever the SQL or its values differ', () => {
    const all = variants.map(([, qs, opts]) => keyed(qs, opts));
    expect(new Set(all.map((k) => k.sql)).size).toBe(variants.length);
    expect(new Set(all.map((k) => k.key)).size).toBe(variants.length);
  });
});
