/**
 * What a statement costs a call to make, in process, no database: built and compiled by Kysely
 * each time (plain) against taken from the compile cache (engine/compiled-queries.ts: its key
 * derived from the shape, its values filled in). For the sites BENCHMARKS.md weighs, "The compile
 * cache's named placeholders". Not part of `npm run bench`.
 *
 *   node --import tsx bench/compile-cost.ts
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { compiledStatement, type ListPlaceholder } from '../engine/compiled-queries.ts';
import { databaseOf } from '../engine/dialects/index.ts';
import { numbering, numberedHighest } from '../engine/dialects/postgres/event-log.ts';
import { tableRef } from '../engine/dialects/table-ref.ts';
import { EVENT_COLUMNS } from '../engine/events/event-sql.ts';
import { createRegistry } from '../engine/registry.ts';
import { recordJsonOf } from '../engine/sql/records-json.ts';
import { VERSION_COLUMN } from '../engine/schema/table.ts';
import notes from '../resources/notes.ts';
import serviceRequests from '../resources/service-requests.ts';
import workOrders from '../resources/work-orders.ts';
import { compileOnlyDb } from '../test/support/compile-only.ts';

const resource = createRegistry([serviceRequests, workOrders, notes]).get('work_orders')!;

/** Microseconds a call of `a` and of `b`, each the least of rounds taken in turns (a busy machine only adds). */
function micros(a: () => unknown, b: () => unknown, n: number, rounds = 20): [number, number] {
  const least = [Infinity, Infinity];
  for (let r = 0; r < rounds; r++)
    for (const side of r % 2 ? [0, 1] : [1, 0]) {
      const f = side === 0 ? a : b;
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) f();
      least[side] = Math.min(least[side]!, Number(process.hrtime.bigint() - start) / 1000 / n);
    }
  return least as [number, number];
}

interface Site<S extends object, V extends object> {
  readonly name: string;
  readonly db: Kysely<any>;
  readonly shape: () => S;
  readonly values: () => V;
  readonly build: (db: Kysely<any>, shape: S, p: any) => { compile(db: Kysely<any>): unknown };
}

const site = <S extends object, V extends object>(s: Site<S, V>): Site<any, any> => s;
const lite = compileOnlyDb('sqlite').db;
const pg = compileOnlyDb('postgres').db.withSchema('tenant_a');

const eventRows = (n: number, values: ListPlaceholder | readonly unknown[]): RawBuilder<unknown> =>
  sql`values ${sql.join(
    Array.from({ length: n }, (_, i) => {
      const v = (k: number) => values.at(i * 10 + k);
      return sql`(cast(${v(0)} as text), cast(${v(1)} as text), cast(${v(2)} as bigint), cast(${v(3)} as text),
        cast(${v(4)} as text), cast(${v(5)} as text), cast(${v(6)} as text), cast(${v(7)} as text),
        cast(${v(8)} as text), cast(${v(9)} as bigint))`;
    }),
  )}`;

const sites = [
  site({
    name: 'a record by id as JSON (SQLite)',
    db: lite,
    shape: () => ({ resource }),
    values: () => ({ id: 12345 }),
    build: (db, { resource }, p) =>
      db
        .selectFrom(resource.name)
        .select([recordJsonOf(databaseOf(db).flavour, resource).as('json'), 'deleted', sql.ref(VERSION_COLUMN).as('version')])
        .where('id', '=', p.id),
  }),
  site({
    name: 'an event appended (SQLite)',
    db: lite,
    shape: () => ({ schema: undefined, n: 1 }),
    values: () => ({ values: ['2026-01-01T00:00:00Z', 'work_orders', 1, 'create', '["a"]', '{"id":1}', 'admin', null, null, null] }),
    build: (_db, { n }, p) => sql`insert into mrs_events ${EVENT_COLUMNS} ${eventRows(n, p.values)}`,
  }),
  site({
    name: 'a feed page, one collection (PostgreSQL)',
    db: pg,
    shape: () => ({ schema: 'tenant_a', collections: 1 }),
    values: () => ({ after: 10, limit: 100, collections: ['work_orders'] }),
    build: (
      _db,
      shape,
      p,
    ) => sql`select h.highest, e.* from (select (select seq from ${tableRef(shape, 'mrs_event_counter')}) as highest) as h
      left join (select seq, at, collection from ${tableRef(shape, 'mrs_events')} where seq > cast(${p.after} as bigint)
        and collection in (${p.collections.at(0)}) order by seq limit cast(${p.limit} as integer)) as e on 1 = 1 order by e.seq`,
  }),
  site({
    name: 'the events numbered (PostgreSQL)',
    db: pg,
    shape: () => ({ schema: 'tenant_a' }),
    values: () => ({ limit: 5000 }),
    build: (_db, shape, p) =>
      sql`with ${numbering(shape, p.limit)} select ${numberedHighest} as highest, (select count(*) from mrs_p) as numbered`,
  }),
  site({
    name: 'the highest seq (SQLite)',
    db: lite,
    shape: () => ({}),
    values: () => ({}),
    build: () => sql`select coalesce((select seq from sqlite_sequence where name = 'mrs_events'), 0) as seq`,
  }),
];

console.log('| statement | plain Kysely, us a call | cached, us a call |');
console.log('|---|---|---|');
for (const s of sites) {
  const statement = compiledStatement(s.name, s.build as any);
  const [plain, cached] = micros(
    () => s.build(s.db, s.shape(), s.values()).compile(s.db),
    () => statement.query(s.db, s.shape(), s.values()),
    2_000,
  );
  console.log(`| ${s.name} | ${plain.toFixed(2)} | ${cached.toFixed(2)} |`);
}
